/**
 * Front matter that does not parse, in a rule file its tool still reads
 * (Cursor, Claude Code, Windsurf, Cline, Copilot, Kiro): the rule loads,
 * none of the block's keys read, applying only when mentioned — never wider
 * than the tool could apply it — with a warning naming the file, the line,
 * what is wrong and what was done. In this plugin's own folders such a rule
 * is skipped, with an error, as before.
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { activationOf } from "../../src/select/rule-set.js";
import { type Box, loadSource, useBox } from "../support/formats.js";
import { shown } from "../support/shown-warnings.js";
import { globsOf } from "../../src/conditions/files.js";

let box: Box;
useBox((made) => (box = made));

/** A tab-indented list: the second item is where YAML gives up (file line 4). */
const TAB_LIST = (key: string) => `---\n${key}:\n\t- src/**\n\t- lib/**\n---\nKeep functions short.`;
const UNREAD =
  "front matter is not valid YAML (end of the stream or a document separator is expected); none of its keys was read, so the rule applies only when mentioned " +
  "(its tool still reads the file: fix the front matter to give the rule its mode)";

const FORMATS = [
  { source: "cursor", file: ".cursor/rules/style.mdc", key: "globs" },
  { source: "claude", file: ".claude/rules/style.md", key: "paths" },
  { source: "windsurf", file: ".windsurf/rules/style.md", key: "globs" },
  { source: "cline", file: ".clinerules/style.md", key: "paths" },
  { source: "copilot", file: ".github/instructions/style.instructions.md", key: "applyTo" },
  { source: "kiro", file: ".kiro/steering/style.md", key: "fileMatchPattern" },
];

describe.each(FORMATS)("$source", ({ source, file, key }) => {
  test("a tab-indented list: the rule loads, applying only when mentioned, with a warning at the line YAML stops", async () => {
    await box.write(box.project, { [file]: TAB_LIST(key) });
    const { rules, warnings } = await loadSource(box, source);
    expect(rules.map((rule) => [rule.name, activationOf(rule), globsOf(rule), rule.content])).toEqual([
      ["style", "manual", [], "Keep functions short."],
    ]);
    expect(shown(warnings)).toEqual([{ path: join(box.project, file), line: 4, message: UNREAD }]);
    expect(warnings.map((warning) => warning.severity)).toEqual(["warning"]);
  });
});

test("an always-on rule whose front matter breaks is not kept always on: what the block said is not guessed", async () => {
  await box.write(box.project, {
    ".cursor/rules/always.mdc": "---\nalwaysApply: true\ndescription: Use when: testing\n---\nTests first.",
  });
  const { summaries, warnings } = await loadSource(box, "cursor");
  expect(summaries).toEqual([{ name: "always", mode: "manual", globs: [], description: undefined }]);
  expect(warnings.map((warning) => [warning.code, warning.line])).toEqual([["front-matter-unread", 3]]);
});

test("front matter that is a list, not keys: named as such", async () => {
  await box.write(box.project, { ".claude/rules/list.md": "---\n- a\n- b\n---\nText." });
  const { summaries, warnings } = await loadSource(box, "claude");
  expect(summaries.map((summary) => summary.mode)).toEqual(["manual"]);
  expect(shown(warnings).map((warning) => [warning.line, warning.message.split(";")[0]])).toEqual([
    [2, "front matter is not a list of `key: value` pairs"],
  ]);
});

test("a broken block with no text after it is still skipped: there is no rule", async () => {
  await box.write(box.project, { ".kiro/steering/empty.md": "---\ninclusion: always\n\tx: [\n---\n" });
  const { rules, warnings } = await loadSource(box, "kiro");
  expect(rules).toEqual([]);
  expect(warnings.map((warning) => [warning.code, warning.severity])).toEqual([["no-rule-text", "error"]]);
});

test("an unclosed block is not guessed at either: the rule is skipped with an error, as before", async () => {
  await box.write(box.project, { ".cursor/rules/open.mdc": "---\nglobs: src/**\nText." });
  const { rules, warnings } = await loadSource(box, "cursor");
  expect(rules).toEqual([]);
  expect(warnings.map((warning) => [warning.code, warning.line])).toEqual([["front-matter-unclosed", 1]]);
});

test("this plugin's own .opencode/rules: a rule whose front matter does not parse is skipped with an error, as before", async () => {
  await box.write(box.project, { ".opencode/rules/style.md": TAB_LIST("globs") });
  const { rules, warnings } = await loadSource(box, "native");
  expect(rules).toEqual([]);
  expect(shown(warnings)).toEqual([
    {
      path: join(box.project, ".opencode/rules/style.md"),
      line: 4,
      message:
        'front matter is not valid YAML (end of the stream or a document separator is expected); rule "style" skipped',
    },
  ]);
});
