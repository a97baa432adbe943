/**
 * A content condition looks at the first MAX_CONTENT_CHARS of the text a tool
 * brought in (issue 40, point 7): a huge read result is cut before it is taken
 * apart, and only the file's first MiB counts, its line numbers aside.
 */
import { describe, expect, test } from "vitest";
import { fileTextOfRead, toolResultOf } from "../../src/hosts/opencode/tool-touch.js";
import type { Rule } from "../../src/rule/rule.js";
import { contentHits, MAX_CONTENT_CHARS } from "../../src/select/content.js";
import { placeCall, textsBroughtIn } from "../../src/session/placed-call.js";
import { parse } from "../support/parse.js";

const ruleOf = (text: string, name: string): Rule => {
  const { rule, warnings } = parse(text, name);
  expect(warnings).toEqual([]);
  return rule as Rule;
};
const rules = [
  ruleOf("---\nfileContains: insideMarker(\n---\nInside.\n", "inside"),
  ruleOf("---\nfileContains: outsideMarker(\n---\nOutside.\n", "outside"),
  ruleOf("---\nfileContains: /^first line/\n---\nFirst.\n", "first"),
];
const noDeadline = { now: () => 0, deadline: 1 };
/** The text a read brought in, by file, as the session takes it from the adapter's result (a project elsewhere: paths stay absolute). */
const readTexts = (args: unknown, output: string) => {
  const result = toolResultOf("read", "c1", args, output);
  return textsBroughtIn(
    placeCall({ tool: "read", ...result.readCall() }, { directory: "/", projectRoot: "/q" }),
    result.fileText,
  );
};
const activated = (texts: readonly { file: string; text: string }[]) =>
  contentHits(rules, texts, new Set(), noDeadline)
    .hits.map(({ rule }) => rule)
    .sort();

/** Lines of 64 characters with their newline: the file's first MiB ends exactly with line 16,384. */
const LINE = 64;
const LINES_IN_MIB = MAX_CONTENT_CHARS / LINE;
const filler = (n: number) => `// filler line ${n}`.padEnd(LINE - 1, ".");

/** A file of about `bytes`, `insideMarker(` ending the last line of its first MiB, `outsideMarker(` opening the next and ending the file. */
function fileLines(bytes: number): string[] {
  const count = Math.ceil(bytes / LINE);
  const lines = Array.from({ length: count }, (_, i) => filler(i + 1));
  lines[0] = "first line".padEnd(LINE - 1, " ");
  lines[LINES_IN_MIB - 1] = "insideMarker(".padStart(LINE - 1, " ");
  lines[LINES_IN_MIB] = "outsideMarker(";
  lines[count - 1] = "outsideMarker( at the end";
  return lines;
}

/** The read as OpenCode 1.18 returns it: wrapped, each line numbered. */
const readOutput = (lines: readonly string[]) =>
  `<path>/p/src/big.ts</path>\n<type>file</type>\n<content>\n${lines.map((line, i) => `${i + 1}: ${line}`).join("\n")}\n\n(End of file - total ${lines.length} lines)\n</content>`;

describe("a 50 MB tool result", () => {
  const lines = fileLines(50 * 1024 * 1024);
  const output = readOutput(lines);

  test("is handled: the file's first MiB is the text looked at, without line numbers, whatever follows", () => {
    expect(output.length).toBeGreaterThan(50 * 1024 * 1024);
    const text = fileTextOfRead(output);
    expect(text.length).toBe(MAX_CONTENT_CHARS);
    expect(text).toBe(lines.slice(0, LINES_IN_MIB).join("\n").concat("\n"));
  });

  test("a pattern inside the first MiB activates its rule; one only past it does not", () => {
    const texts = readTexts({ filePath: "/p/src/big.ts" }, output);
    expect(texts.map(({ file }) => file)).toEqual(["/p/src/big.ts"]);
    expect(activated(texts)).toEqual(["first", "inside"]);
  });

  test("a result in no known form is cut the same way", () => {
    const plain = lines.join("\n");
    const text = fileTextOfRead(plain);
    expect(text).toBe(plain.slice(0, MAX_CONTENT_CHARS));
    expect(activated([{ file: "src/big.ts", text }])).toEqual(["first", "inside"]);
  });
});

describe("within the bound, nothing changes", () => {
  test("a read shorter than a MiB is the file's whole text; its last line counts", () => {
    const lines = ["first line", filler(2), "outsideMarker("];
    expect(fileTextOfRead(readOutput(lines))).toBe(lines.join("\n"));
    expect(activated(readTexts({ filePath: "a.ts" }, readOutput(lines)))).toEqual(["first", "outside"]);
  });

  test("`</content>` inside the file's text is text; the wrapper's closing line ends it, whatever follows", () => {
    const lines = ["first line", "const tag = '</content>';", "insideMarker("];
    expect(fileTextOfRead(readOutput(lines))).toBe(lines.join("\n"));
    const reminder = `\n\n<system-reminder>\n${"outsideMarker( is not in the file\n".repeat(1000)}</system-reminder>`;
    expect(fileTextOfRead(readOutput(lines) + reminder)).toBe(lines.join("\n"));
    expect(fileTextOfRead("<path>/p/empty.ts</path>\n<content></content>")).toBe("");
  });
});
