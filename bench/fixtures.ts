/**
 * Rule folders for the benchmark: `count` rule files under
 * `<project>/.opencode/rules/group-NN/` (100 per folder), half always-on and
 * half conditional (globs and keywords), each a few hundred bytes like a real
 * rule. And the engine started on such a project with default options.
 */
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRulebook, type Rulebook } from "../src/engine.js";
import { createLogger } from "../src/log.js";
import { parseOptions } from "../src/options.js";
import { nodeRuleFs } from "../src/sources/fs.js";

export interface BenchProject {
  root: string;
  home: string;
  project: string;
  rulesDir: string;
}

export async function benchProject(prefix: string): Promise<BenchProject> {
  const root = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  const home = join(root, "home");
  const project = join(root, "project");
  const rulesDir = join(project, ".opencode", "rules");
  await mkdir(home, { recursive: true });
  await mkdir(rulesDir, { recursive: true });
  return { root, home, project, rulesDir };
}

const BODY =
  "Keep functions small and named for what they do. Prefer early returns to nested conditions. " +
  "Every public function has a doc comment that says what it returns and when it throws. " +
  "Tests live next to the code they test and name the behaviour, not the method.";

/** The text of rule number `i`: even numbers always-on, odd ones on globs and keywords. */
export function ruleText(i: number): string {
  if (i % 2 === 0) {
    return i % 4 === 0 ? `# Rule ${i}\n\n${BODY}\n` : `---\ndescription: House rule ${i}\nalwaysApply: true\n---\n# Rule ${i}\n\n${BODY}\n`;
  }
  return `---\ndescription: Module rule ${i}\nglobs: src/mod-${i}/**/*.ts, src/mod-${i}/**/*.tsx\nkeywords: [kw${i}, topic-${i}]\n---\n# Module ${i}\n\n${BODY}\n`;
}

/** Writes `count` rule files (in folders of 100); returns their paths. */
export async function writeRules(rulesDir: string, count: number): Promise<string[]> {
  const paths: string[] = [];
  for (let group = 0; group * 100 < count; group++) {
    const dir = join(rulesDir, `group-${String(group).padStart(3, "0")}`);
    await mkdir(dir, { recursive: true });
    const batch: Promise<void>[] = [];
    for (let i = group * 100; i < Math.min(count, (group + 1) * 100); i++) {
      const path = join(dir, `rule-${String(i).padStart(5, "0")}.md`);
      paths.push(path);
      batch.push(writeFile(path, ruleText(i)));
    }
    await Promise.all(batch);
  }
  return paths;
}

/** Starts the engine on a bench project: default options, real fs, a silent logger and `client` (a stand-in for the SDK client). */
export function startBenchRulebook(bench: BenchProject, client: unknown): Promise<Rulebook> {
  return startRulebook({
    client: client as never,
    directory: bench.project,
    worktree: bench.project,
    env: {},
    home: bench.home,
    fs: nodeRuleFs,
    options: parseOptions({}, {}).options,
    log: createLogger(async () => undefined, false),
  });
}
