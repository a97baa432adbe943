/**
 * Shared by the robustness tests: a throwaway home and project, the discovery
 * context `loadRules` gets from the engine (env and home pointed at the temp
 * folders, the real file system, the default 64 KiB limit per rule), and a
 * RuleFs that records every call.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { vi } from "vitest";
import type { DiscoveryContext } from "../../src/discover/discover.js";
import { nodeRuleFs, type RuleFs } from "../../src/discover/fs.js";

export const MAX_RULE_BYTES = 65536;

export interface Sandbox {
  root: string;
  home: string;
  project: string;
  /** `<home>/.config/opencode/rules` (env has no XDG_CONFIG_HOME / OPENCODE_CONFIG_DIR). */
  globalRules: string;
  /** `<project>/.opencode/rules`. */
  projectRules: string;
  context(fs?: RuleFs): DiscoveryContext;
  /** Writes files (relative path → content) under `dir`, making folders. Returns the absolute paths. */
  write(dir: string, files: Record<string, string | Uint8Array>): Promise<string[]>;
  cleanup(): Promise<void>;
}

export async function sandbox(prefix = "rulebook-robust-"): Promise<Sandbox> {
  const root = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  const home = join(root, "home");
  const project = join(root, "project");
  await mkdir(home, { recursive: true });
  await mkdir(project, { recursive: true });
  return {
    root,
    home,
    project,
    globalRules: join(home, ".config", "opencode", "rules"),
    projectRules: join(project, ".opencode", "rules"),
    context: (fs = nodeRuleFs) => ({ env: {}, home, directory: project, worktree: project, fs, maxRuleBytes: MAX_RULE_BYTES }),
    async write(dir, files) {
      const paths: string[] = [];
      for (const [rel, content] of Object.entries(files)) {
        const path = join(dir, rel);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, content);
        paths.push(path);
      }
      return paths;
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** nodeRuleFs with every call recorded (vi.fn), optionally with some calls replaced. */
export function spyFs(overrides: Partial<RuleFs> = {}) {
  const base: RuleFs = { ...nodeRuleFs, ...overrides };
  return {
    readdir: vi.fn(base.readdir),
    stat: vi.fn(base.stat),
    realpath: vi.fn(base.realpath),
    readFile: vi.fn(base.readFile),
  } satisfies RuleFs;
}

/** The error Node gives for a permission denied, with its `code`. */
export function eacces(syscall: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EACCES: permission denied, ${syscall} '${path}'`), { code: "EACCES", errno: -13, syscall, path });
}
