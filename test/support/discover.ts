/** Shared by the discovery tests: a fresh home and project per test, and discovery over them. */
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { DEFAULT_MAX_RULE_BYTES, discoverRules, type DiscoveryContext } from "../../src/discover/discover.js";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { nativeSource } from "../../src/formats/native.js";
import type { RuleSource } from "../../src/discover/source.js";
import { tempDirs } from "./temp-folder.js";

export const GOOD = { "good.md": "A good rule.", "zz-last.mdc": "Last good rule." };

/** Registers the folders for the calling test file; `box` holds the current test's paths. */
export function discoverSandbox() {
  const dirs = tempDirs();
  const box = { dirs, home: "", project: "", globalDir: "", projectDir: "" };
  beforeEach(async () => {
    box.home = await realpath(await dirs.make("rulebook-home-"));
    box.project = await realpath(await dirs.make("rulebook-project-"));
    box.globalDir = join(box.home, ".config", "opencode", "rules");
    box.projectDir = join(box.project, ".opencode", "rules");
  });
  afterEach(() => dirs.cleanup());
  const context = (overrides: Partial<DiscoveryContext> = {}): DiscoveryContext => ({
    env: {},
    home: box.home,
    directory: box.project,
    worktree: box.project,
    fs: nodeRuleFs,
    maxRuleBytes: DEFAULT_MAX_RULE_BYTES,
    ...overrides,
  });
  const discover = (overrides: Partial<DiscoveryContext> = {}, sources: RuleSource[] = [nativeSource]) =>
    discoverRules(context(overrides), sources);
  return { box, discover };
}
