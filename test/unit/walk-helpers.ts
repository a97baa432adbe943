/** Shared by the walk tests: real temporary folders, and the node file system with reading forbidden. */
import { realpath } from "node:fs/promises";
import { afterEach, vi } from "vitest";
import { nodeRuleFs, type RuleFs } from "../../src/discover/fs.js";
import { tempDirs } from "./helpers.js";

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** A real temporary folder, resolved (so paths in warnings compare equal); removed after the test. */
export const makeRoot = async () => realpath(await dirs.make());

export const eacces = (path: string) => Object.assign(new Error(`EACCES: permission denied, scandir '${path}'`), { code: "EACCES" });

/** The node file system, with readFile forbidden: walking never opens a file. */
export function spyFs(overrides: Partial<RuleFs> = {}): RuleFs & { readFile: ReturnType<typeof vi.fn> } {
  return {
    ...nodeRuleFs,
    ...overrides,
    readFile: vi.fn(async () => {
      throw new Error("walk must not read files");
    }),
  };
}
