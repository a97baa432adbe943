/**
 * Content conditions (issue 29): what a tool result costs when 1,000 rules
 * apply by a file's content (`fileContains`, half literals, half regular
 * expressions), none of which the file holds: every pattern is looked for in
 * the whole text. Measured through the plugin's entry as OpenCode 1 calls it
 * (`tool.execute.after` of a `read` of a 100 KiB file, in OpenCode 1.18's
 * numbered form), each read a new version of the file (a version seen before
 * is answered from the cache: measured apart).
 *
 * The floor is the same call on the same number of rules that apply by globs
 * matching nothing: what a tool result costs without content conditions. The
 * content condition's cost is the difference.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Plugin } from "@opencode-ai/plugin";
import { benchProject, isolateEnv } from "./fixtures.js";
import { BenchSession, fakeClient, startPlugin, stopPlugin } from "./plugin.js";
import { median, timed } from "./stats.js";

export const CONTENT_RULES = 1000;
export const READ_BYTES = 100 * 1024;

export interface ContentResult {
  /** Milliseconds per tool result, each a new version of the file. */
  samples: number[];
  /** The same with rules that apply by globs instead: the floor. */
  floor: number[];
  /** A version read before, milliseconds (median). */
  cachedMs: number;
  /** The first tool result (the pattern sets compiled then), milliseconds. */
  firstMs: number;
}

const contentRule = (i: number) =>
  `---\nfileContains: ${i % 2 === 0 ? `"legacy_${i}("` : `/\\bold${i}x\\s*=\\s*any\\b/i`}\n---\nRule ${i}: replace the legacy call.\n`;
const globRule = (i: number) => `---\nglobs: nowhere-${i}/**\n---\nRule ${i}: replace the legacy call.\n`;

/** A `read` result of `bytes` of ordinary code, as OpenCode 1.18 gives it; `version` makes it a new version. */
function readOutput(bytes: number, version: number): string {
  const line = "const total = items.reduce((sum, item) => sum + item.price * item.count, 0);";
  const lines = [`// version ${version}`];
  for (let size = lines[0]!.length; size < bytes; ) {
    const next = `${line} // ${lines.length}`;
    lines.push(next);
    size += next.length + 1;
  }
  return `<path>/p/src/big.ts</path>\n<type>file</type>\n<content>\n${lines.map((text, i) => `${i + 1}: ${text}`).join("\n")}\n\n(End of file - total ${lines.length} lines)\n</content>`;
}

async function timeReads(plugin: Plugin, rule: (i: number) => string, rounds: number, cached: boolean) {
  const bench = await benchProject("rulebook-bench-content-");
  isolateEnv(bench.home);
  await mkdir(bench.rulesDir, { recursive: true });
  await Promise.all(
    Array.from({ length: CONTENT_RULES }, (_, i) => writeFile(join(bench.rulesDir, `content-${i}.md`), rule(i))),
  );
  await writeFile(join(bench.rulesDir, "house.md"), "---\nalwaysApply: true\n---\nBe brief.\n");
  const { client } = fakeClient();
  const hooks = await startPlugin(plugin, bench, client);
  try {
    const session = new BenchSession(hooks, "ses_content_bench");
    await session.created();
    await session.userMessage("Read the big file.");
    const file = join(bench.project, "src/big.ts");
    const firstMs = await timed(() => session.read(file, readOutput(READ_BYTES, 0)));
    const samples: number[] = [];
    for (let i = 1; i <= rounds; i++) {
      const output = readOutput(READ_BYTES, i);
      samples.push(await timed(() => session.read(file, output)));
    }
    const again: number[] = [];
    if (cached)
      for (let i = 1; i <= Math.min(rounds, 20); i++)
        again.push(await timed(() => session.read(file, readOutput(READ_BYTES, i))));
    return { samples, firstMs, cachedMs: median(again) };
  } finally {
    await stopPlugin(hooks);
    await rm(bench.root, { recursive: true, force: true });
  }
}

export async function measureContent(plugin: Plugin, rounds: number): Promise<ContentResult> {
  const content = await timeReads(plugin, contentRule, rounds, true);
  const floor = await timeReads(plugin, globRule, rounds, false);
  return { samples: content.samples, floor: floor.samples, cachedMs: content.cachedMs, firstMs: content.firstMs };
}
