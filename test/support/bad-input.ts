/** Shared by the bad-input tests: the corpus, the known good rule next to each case, and loading as the engine does. */
import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, expect } from "vitest";
import { nodeRuleFs, type RuleFs } from "../../src/discover/fs.js";
import { loadRules, type LoadedRules } from "../../src/formats/load.js";
import { sandbox, type Sandbox } from "./sandbox.js";

export const CORPUS = fileURLToPath(new URL("../fixtures/bad", import.meta.url));
export const GOOD_TEXT = "The known good rule: it must load next to every bad file.";

export const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** A fresh sandbox for each test of the calling file, handed to `use`; removed after the test. Returns tools over it. */
export function badInputSandbox(use: (box: Sandbox) => void = () => undefined) {
  let current: Sandbox | undefined;
  beforeEach(async () => {
    current = await sandbox();
    use(current);
  });
  afterEach(() => current?.cleanup());
  return badInputTools(() => current as Sandbox);
}

/** Tools over the current test's sandbox. */
function badInputTools(box: () => Sandbox) {
  return {
    /** Copies the known good rule (and any corpus files) into the project's rules folder. */
    async withGood(...corpusFiles: string[]): Promise<void> {
      await mkdir(box().projectRules, { recursive: true });
      await copyFile(join(CORPUS, "_control", "good.md"), join(box().projectRules, "good.md"));
      for (const file of corpusFiles) await copyFile(join(CORPUS, file), join(box().projectRules, file));
    },
    expectGoodLoaded(loaded: LoadedRules, scope: "project" | "global" = "project"): void {
      const good = loaded.rules.find((rule) => rule.name === "good");
      expect(good, "the known good rule still loads").toMatchObject({ scope, content: GOOD_TEXT, alwaysApply: true });
    },
    load: (fs: RuleFs = nodeRuleFs) => loadRules(box().context(fs)),
    inRules: (name: string) => join(box().projectRules, name),
  };
}
