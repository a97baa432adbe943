/**
 * `check`'s "glob matches no file" looks where matching looks: a rule's globs
 * match files in hidden folders too (`*.mdc` attaches a rule for
 * `.cursor/rules/general.mdc`), so those files count. Version control and
 * tools' caches are not listed, and a glob into them is not judged.
 */
import { beforeEach, expect, test } from "vitest";
import { type Sandbox, useSandbox } from "../support/cli.js";

const current = useSandbox();
let box: Sandbox;
beforeEach(() => {
  box = current();
});

test("a glob matching only files in hidden folders is not reported as matching nothing; one matching nowhere still is", async () => {
  await box.write({
    ".cursor/rules/general.mdc": "---\nalwaysApply: true\n---\nBe brief.\n",
    ".github/workflows/ci.yml": "on: push\n",
    ".opencode/rules/rules.md": "---\nglobs: ['*.mdc', '.github/**/*.yml', '**/*.rs']\n---\nRule files are code.\n",
  });
  const { stdout, code } = box.run(["check"]);
  expect(code).toBe(0);
  expect(stdout).not.toContain('glob "*.mdc" matches no file');
  expect(stdout).not.toContain('glob ".github/**/*.yml" matches no file');
  expect(stdout).toContain('warning .opencode/rules/rules.md: glob "**/*.rs" matches no file in the project\n');
});

test("a glob into .git or a tool's cache, which the list does not enter, is not judged; files there do not count for other globs", async () => {
  await box.write({
    ".venv/lib/site.py": "x = 1\n",
    ".opencode/rules/py.md": "---\nglobs: ['.venv/**', '**/*.py']\n---\nPython.\n",
  });
  const { stdout } = box.run(["check"]);
  expect(stdout).not.toContain('glob ".venv/**"');
  expect(stdout).toContain('warning .opencode/rules/py.md: glob "**/*.py" matches no file in the project\n');
});
