/**
 * Time from `session.created` to the rules message being stored, in the real
 * OpenCode (`opencode serve` from the e2e harness, one rule), with no user
 * message: the silent prompt, so the 300 ms grace period is included.
 */
import { existsSync } from "node:fs";
import { MARKER_KEY } from "./plugin.js";

export type RealOpencodeResult = { serverMs: number[]; observedMs: number[] } | { skipped: string };

export async function benchRealOpencode(pluginPath: string, sessions: number): Promise<RealOpencodeResult> {
  if (!pluginPath.endsWith(".js"))
    return { skipped: `OpenCode loads a built plugin; ${pluginPath} is not one (npm run build)` };
  if (!existsSync(pluginPath)) return { skipped: `${pluginPath} missing (npm run build)` };
  const { startOpencode } = await import("../test/e2e/harness/opencode.js");
  const oc = await startOpencode({ pluginPath, projectRules: { "style.md": "Write small functions.\n" } });
  try {
    const serverMs: number[] = [];
    const observedMs: number[] = [];
    for (let i = 0; i < sessions + 1; i++) {
      const t0 = performance.now();
      const created = await oc.client.session.create({ body: { title: `bench ${i}` } });
      const session = created.data as { id: string; time: { created: number } } | undefined;
      if (!session) throw new Error(`session.create failed: ${JSON.stringify(created.error)}`);
      let stored: { time: { created: number } } | undefined;
      const deadline = Date.now() + 10_000;
      while (!stored && Date.now() < deadline) {
        const messages = (await oc.client.session.messages({ path: { id: session.id } })).data ?? [];
        const found = messages.find((message) =>
          message.parts.some((part) => (part as { metadata?: Record<string, unknown> }).metadata?.[MARKER_KEY]),
        );
        if (found) stored = found.info as { time: { created: number } };
        else await new Promise((resolve) => setTimeout(resolve, 2));
      }
      if (!stored) throw new Error(`no rules message in session ${session.id} after 10 s`);
      if (i === 0) continue; // the first session warms OpenCode's code paths
      observedMs.push(performance.now() - t0);
      serverMs.push(stored.time.created - session.time.created);
    }
    return { serverMs, observedMs };
  } finally {
    await oc.stop();
  }
}
