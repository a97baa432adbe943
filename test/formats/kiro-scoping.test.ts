/**
 * Kiro scopes a steering file by `fileMatchPattern` only
 * (https://kiro.dev/docs/steering/, "Inclusion modes"): another tool's
 * scoping key is ignored, with a warning naming the key, its line and what
 * Kiro reads instead; the rule keeps the mode Kiro gives it.
 */
import { join } from "node:path";
import { expect, test } from "vitest";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";

let box: Box;
useBox((made) => (box = made));

const IGNORED_GLOBS =
  'Kiro does not read front matter key "globs" (it reads "fileMatchPattern"); ignored here too, as in Kiro';

test("fileMatch with globs and no fileMatchPattern: Kiro has no pattern, so the rule is manual, with both warnings", async () => {
  await box.write(join(box.project, ".kiro/steering"), {
    "ts.md": '---\ninclusion: fileMatch\nglobs: "src/**/*.ts"\n---\nTypeScript.',
  });
  const { summaries, warnings, rules } = await loadSource(box, "kiro");
  expect(summaries).toEqual([{ name: "ts", mode: "manual", globs: [], description: undefined }]);
  expect(rules[0]?.toolType).toBe("fileMatch");
  const path = join(box.project, ".kiro/steering/ts.md");
  expect(shown(warnings)).toEqual([
    { path, line: 3, message: IGNORED_GLOBS },
    {
      path,
      line: undefined,
      message:
        'front matter says "inclusion: fileMatch" but gives no fileMatchPattern; the rule applies only when mentioned',
    },
  ]);
});

test("always (or no inclusion) with globs: always on, as in Kiro; the globs are ignored with a warning at their line", async () => {
  await box.write(join(box.project, ".kiro/steering"), {
    "always.md": "---\ninclusion: always\nglobs:\n  - src/**\n---\nAlways.",
    "default.md": "---\nglobs: docs/**\n---\nDefault.",
  });
  const { summaries, warnings } = await loadSource(box, "kiro");
  expect(summaries).toEqual([
    { name: "always", mode: "always", globs: [], description: undefined },
    { name: "default", mode: "always", globs: [], description: undefined },
  ]);
  expect(shown(warnings)).toEqual([
    { path: join(box.project, ".kiro/steering/always.md"), line: 3, message: IGNORED_GLOBS },
    { path: join(box.project, ".kiro/steering/default.md"), line: 2, message: IGNORED_GLOBS },
  ]);
});

test("fileMatch with fileMatchPattern and another tool's paths/applyTo: only fileMatchPattern scopes the rule", async () => {
  await box.write(join(box.project, ".kiro/steering"), {
    "api.md": '---\ninclusion: fileMatch\nfileMatchPattern: "api/**"\npaths: "web/**"\napplyTo: "**"\n---\nAPI.',
  });
  const { summaries, warnings } = await loadSource(box, "kiro");
  expect(summaries).toEqual([{ name: "api", mode: "conditional", globs: ["api/**"], description: undefined }]);
  expect(shown(warnings).map((warning) => [warning.line, warning.message])).toEqual([
    [4, 'Kiro does not read front matter key "paths" (it reads "fileMatchPattern"); ignored here too, as in Kiro'],
    [5, 'Kiro does not read front matter key "applyTo" (it reads "fileMatchPattern"); ignored here too, as in Kiro'],
  ]);
});

test("manual and auto with globs: their mode stands, the globs are named as ignored", async () => {
  await box.write(join(box.project, ".kiro/steering"), {
    "by-hand.md": "---\ninclusion: manual\nglobs: src/**\n---\nBy hand.",
    "api.md": "---\ninclusion: auto\ndescription: API design\nglobs: api/**\n---\nAPI.",
  });
  const { summaries, warnings } = await loadSource(box, "kiro");
  expect(summaries).toEqual([
    { name: "api", mode: "on-request", globs: [], description: "API design" },
    { name: "by-hand", mode: "manual", globs: [], description: undefined },
  ]);
  expect(warnings.map((warning) => [warning.code, warning.line])).toEqual([
    ["key-ignored-by-tool", 4],
    ["key-ignored-by-tool", 3],
  ]);
});
