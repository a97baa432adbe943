/**
 * Shared by the source tests: the all-formats fixture (or an empty project)
 * copied to a fresh temporary folder with its own home, and the context
 * `loadRules` gets from the engine, pointed at them.
 */
import { mkdir, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach } from "vitest";
import { DEFAULT_MAX_RULE_BYTES, type DiscoveryContext } from "../../src/discover/discover.js";
import { nodeRuleFs } from "../../src/discover/fs.js";
import type { Rule } from "../../src/rule/rule.js";
import { activationOf } from "../../src/select/rule-set.js";
import { loadRules, type LoadOptions } from "../../src/formats/load.js";
import { tempTree } from "./temp-folder.js";
import { globsOf } from "../../src/conditions/files.js";

export const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "all-formats");

export interface Box {
  root: string;
  home: string;
  project: string;
  context(overrides?: Partial<DiscoveryContext>): DiscoveryContext;
  load(options?: LoadOptions, overrides?: Partial<DiscoveryContext>): ReturnType<typeof loadRules>;
  /** Writes files (relative path → content) under `dir`, making folders. */
  write(dir: string, files: Record<string, string>): Promise<void>;
  link(target: string, path: string): Promise<void>;
  cleanup(): Promise<void>;
}

/** A temporary project and home (`temp-folder.ts`); `fixture: true` copies the all-formats fixture into them. */
export async function makeBox(fixture = false): Promise<Box> {
  const tree = await tempTree("rulebook-sources-", fixture ? { copy: FIXTURE } : {});
  const { root, home, project } = tree;
  const context = (overrides: Partial<DiscoveryContext> = {}): DiscoveryContext => ({
    env: {},
    home,
    directory: project,
    worktree: project,
    fs: nodeRuleFs,
    maxRuleBytes: DEFAULT_MAX_RULE_BYTES,
    ...overrides,
  });
  return {
    root,
    home,
    project,
    context,
    load: (options = {}, overrides = {}) => loadRules(context(overrides), options),
    async write(dir, files) {
      await tree.write(dir, files);
    },
    async link(target, path) {
      await mkdir(dirname(path), { recursive: true });
      await symlink(target, path);
    },
    cleanup: tree.cleanup,
  };
}

/** The rules one source loads from the box, with a summary of each: name, activation, globs, description. */
export async function loadSource(box: Box, source: string, overrides: Partial<DiscoveryContext> = {}) {
  const loaded = await box.load({ sources: [source] }, overrides);
  const summary = (rule: Rule) => ({
    name: rule.name,
    mode: activationOf(rule),
    globs: globsOf(rule),
    description: rule.description,
  });
  return { ...loaded, summaries: loaded.rules.map(summary) };
}

/** A fresh empty box for each test of the calling file, handed to `use`; removed after the test. */
export function useBox(use: (box: Box) => void): void {
  let current: Box | undefined;
  beforeEach(async () => {
    current = await makeBox();
    use(current);
  });
  afterEach(() => current?.cleanup());
}
