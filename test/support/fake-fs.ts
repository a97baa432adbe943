/** File systems for tests: the node one with every call recorded, and the errors Node gives. */
import { vi } from "vitest";
import { nodeRuleFs, type RuleFs } from "../../src/discover/fs.js";

/**
 * `nodeRuleFs` with every call recorded (vi.fn), some calls replaced by
 * `overrides`; `forbidReading`: reading a file throws (a walk must never
 * open one).
 */
export function spyFs(overrides: Partial<RuleFs> = {}, { forbidReading = false } = {}) {
  const base: RuleFs = { ...nodeRuleFs, ...overrides };
  return {
    readdir: vi.fn(base.readdir),
    stat: vi.fn(base.stat),
    realpath: vi.fn(base.realpath),
    readFile: forbidReading
      ? vi.fn(async (_path: string, _maxBytes: number, _size?: number): Promise<Uint8Array> => {
          throw new Error("walk must not read files");
        })
      : vi.fn(base.readFile),
  } satisfies RuleFs;
}

/** The error Node gives for a permission denied, with its `code`. */
export function eacces(syscall: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EACCES: permission denied, ${syscall} '${path}'`), {
    code: "EACCES",
    errno: -13,
    syscall,
    path,
  });
}
