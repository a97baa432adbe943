/**
 * The prompt cache (issue 17): the share of a scripted session's request
 * bytes a provider can reuse as a cached prefix, with the plugin and with no
 * plugin, in the real OpenCode (the scripted session of
 * `test/e2e/harness/cache-session.ts`: reads, a write, a keyword, a mention,
 * the rule tool, a hot reload, a manual and an automatic compaction). The
 * floor is OpenCode on its own: the rules add bytes, never a rewrite.
 */
import { existsSync } from "node:fs";

export interface PromptCacheRow {
  label: string;
  requests: number;
  /** Consecutive requests within one window, and how many of them extend the one before exactly. */
  pairs: number;
  extending: number;
  reusableBytes: number;
  totalBytes: number;
  share: number;
}

export type PromptCacheResult = { rows: PromptCacheRow[] } | { skipped: string };

export async function benchPromptCache(pluginPath: string): Promise<PromptCacheResult> {
  if (!pluginPath.endsWith(".js"))
    return { skipped: `OpenCode loads a built plugin; ${pluginPath} is not one (npm run build)` };
  if (!existsSync(pluginPath)) return { skipped: `${pluginPath} missing (npm run build)` };
  const { startOpencode } = await import("../test/e2e/harness/opencode.js");
  const { CACHE_PROJECT, pairsWithinWindows, runCacheSession } = await import("../test/e2e/harness/cache-session.js");
  const { reusablePrefixShare } = await import("../test/e2e/harness/prompt-prefix.js");
  const rows: PromptCacheRow[] = [];
  for (const [label, plugin] of [
    ["with opencode-rulebook", pluginPath],
    ["no plugin (floor)", undefined],
  ] as const) {
    const oc = await startOpencode({ ...(plugin ? { pluginPath: plugin } : {}), ...CACHE_PROJECT });
    try {
      const session = await runCacheSession(oc);
      const pairs = pairsWithinWindows(session);
      const extending = pairs.filter(({ difference }) => difference === undefined).length;
      const { reusable, total, share } = reusablePrefixShare(session.requests.map((request) => request.body));
      rows.push({
        label,
        requests: session.requests.length,
        pairs: pairs.length,
        extending,
        reusableBytes: reusable,
        totalBytes: total,
        share,
      });
    } finally {
      await oc.stop();
    }
  }
  return { rows };
}
