/** Shared helpers for the unit tests: temporary folders and rule objects. */
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DEFAULT_PRIORITY, type Rule } from "../../src/rule/rule.js";
import type { RuleCandidate } from "../../src/rule/parse.js";

/** A fresh temporary folder; `cleanup()` removes every folder made so far. */
export function tempDirs() {
  const made: string[] = [];
  return {
    async make(prefix = "rulebook-unit-"): Promise<string> {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
    async cleanup(): Promise<void> {
      await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}

/** Writes `files` (relative path → content) under `root`, making folders as needed. */
export async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
}

export function makeRule(overrides: Partial<Rule> = {}): Rule {
  const name = overrides.name ?? "rule";
  return {
    name,
    scope: "project",
    source: "native",
    path: `/project/.opencode/rules/${name}.md`,
    displayPath: `.opencode/rules/${name}.md`,
    content: `Content of ${name}.`,
    globs: [],
    keywords: [],
    match: "any",
    priority: DEFAULT_PRIORITY,
    override: false,
    unknownKeys: [],
    ...overrides,
  };
}

export function candidate(name = "my-rule", path = `/project/.opencode/rules/${name}.md`): RuleCandidate {
  return { name, scope: "project", source: "native", path, displayPath: `.opencode/rules/${name}.md` };
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
