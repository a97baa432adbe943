/** Shared by the walk tests: real temporary folders, removed after each test. */
import { afterEach } from "vitest";
import type { RuleFs } from "../../src/discover/fs.js";
import { spyFs } from "./fake-fs.js";
import { tempDirs } from "./temp-folder.js";

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** A real temporary folder, resolved (so paths in warnings compare equal); removed after the test. */
export const makeRoot = () => dirs.make();

/** The file system a walk gets in tests: the node one, calls recorded, with reading a file forbidden (a walk never opens one). */
export const walkFs = (overrides: Partial<RuleFs> = {}) => spyFs(overrides, { forbidReading: true });
