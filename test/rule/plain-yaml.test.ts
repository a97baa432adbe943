/**
 * The fast reader of plain front matter (rule/plain-yaml.ts) reads a block
 * exactly as js-yaml does, or leaves it to js-yaml: a rule's keys never
 * depend on which of the two read them.
 */
import matter from "gray-matter";
import { describe, expect, test } from "vitest";
import { splitFrontMatter } from "../../src/rule/front-matter.js";
import { readPlainYaml } from "../../src/rule/plain-yaml.js";
import { seededRandom } from "../support/seeded-random.js";

const yaml = (matter as unknown as { engines: { yaml: { parse: (s: string) => unknown } } }).engines.yaml;

/** js-yaml's reading of the block: its value, or that it throws. */
function jsYaml(block: string): { value: unknown } | { threw: true } {
  try {
    return { value: yaml.parse(block) };
  } catch {
    return { threw: true };
  }
}

/** A block the fast reader takes must read as js-yaml reads it, to the value's type. */
function expectSameAsJsYaml(block: string): boolean {
  const fast = readPlainYaml(block);
  if (fast === undefined) return false;
  expect(jsYaml(block), JSON.stringify(block)).toStrictEqual({ value: fast });
  return true;
}

describe("plain front matter read without js-yaml", () => {
  test("the usual blocks are read here, as js-yaml reads them", () => {
    const usual = [
      "description: House rule 2\nalwaysApply: true",
      "description: Module rule 1\nglobs: src/mod-1/**/*.ts, src/mod-1/**/*.tsx\nkeywords: [kw1, topic-1]",
      "alwaysApply: false\ndescription: 'It''s quoted: with a colon # and a hash'",
      'description: "double quoted"\n# a comment\n\nenabled: false',
      "keywords: []\npriority_x: Null\nflag: FALSE",
      "description: see [the docs] and {braces}, a#hash, 'quotes' and \"more\"",
    ];
    for (const block of usual) expect(expectSameAsJsYaml(block), block).toBe(true);
  });

  test("what YAML reads as another type, or may, is left to js-yaml", () => {
    const others = [
      "priority: 10",
      "when: 2024-01-01",
      "x: .inf",
      "globs: *.ts",
      "globs: '*.ts' # comment",
      "a: b: c",
      "globs:\n  - src/**",
      "description: one\n  two",
      "true: yes",
      "a: x\na: y",
      "__proto__: x",
      "keywords: [a, , b]",
      "keywords: [true, b]",
      "keywords: [a, b] c",
      "description: café",
      "description:\tx",
      "a: 'unclosed",
      'a: "back\\slash"',
      "  a: indented",
      "a: -x",
    ];
    for (const block of others) expect(readPlainYaml(block), block).toBeUndefined();
  });

  test("random blocks of tricky lines: whatever the fast reader takes, js-yaml reads the same", () => {
    const random = seededRandom(44);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const keys = ["a", "globs", "description", "a-b", "_x", "y", "on", "k1"];
    const trickyKeys = ["true", "True", "null", "__proto__", "a b", "1", "a:b", "-a"];
    const separators = [": ", ":  ", ":", ":\t", " : "];
    const plain = ["word", "Two words", "src/**/*.ts, src/*.tsx", "'q''d'", '"dq"', "[a, b]", "[]", "false", "Null"];
    const values = [
      "true",
      "True",
      "tRue",
      "yes",
      "no",
      "off",
      "null",
      "NULL",
      "~",
      "1",
      "1.5",
      "0x1F",
      ".inf",
      ".NaN",
      "+1",
      "2024-01-01",
      "'a''b'",
      "'a'b'",
      "''",
      '""',
      '"a\\b"',
      '"a"b"',
      "[a, b]",
      "[a,,b]",
      "[]",
      "[ ]",
      "[true]",
      "[a b]",
      "[a, b] c",
      "[a.b, c/d, e-f]",
      "[1, a]",
      "[a: b]",
      "a #c",
      "a#c",
      "a: b",
      "a:",
      "src/**/*.ts, src/*.tsx",
      "*.ts",
      "{a}",
      "{a: b}",
      "'unclosed",
      "x]",
      "-a",
      "- a",
      "?a",
      "? a",
      "|",
      ">",
      "a'b",
      "é",
      "a\tb",
      "%x",
      "@x",
      "`x",
      "!x",
      "&x",
      "a,b",
      "http://x.y/z",
      "/abs/path",
      "_under",
      "a  b  ",
      "Yes",
      "=",
      "<<",
      "a | b",
      "a > b",
      "a ' b",
      "!!str x",
      "a\u0007b",
      "...",
      "---",
    ];
    const line = (): string => {
      const roll = random();
      if (roll < 0.08) return pick(["", "   ", "# note", "  # note", "#", "\t"]);
      if (roll < 0.12) return pick(["  continued", "  - item", "- item", "...", "%YAML 1.2"]);
      const key = random() < 0.9 ? pick(keys) : pick(trickyKeys);
      const separator = random() < 0.8 ? ": " : pick(separators);
      const value = random() < 0.6 ? pick(plain) : pick(values);
      return `${key}${separator}${value}${pick(["", "", "", " ", " # c"])}`;
    };
    let taken = 0;
    let tried = 0;
    for (let i = 0; i < 20_000; i++) {
      const block = Array.from({ length: 1 + Math.floor(random() * 3) }, line).join("\n");
      tried++;
      if (expectSameAsJsYaml(block)) taken++;
    }
    // The comparison means something only if the fast reader took a good share of the blocks.
    expect(taken / tried).toBeGreaterThan(0.1);
  });

  test("a rule file's front matter reads the same through splitFrontMatter either way", () => {
    const text = "---\ndescription: Module rule\nglobs: src/**/*.ts\nkeywords: [kw, topic-1]\n---\nBody.";
    const split = splitFrontMatter(text);
    expect(split).toEqual({
      ok: true,
      data: { description: "Module rule", globs: "src/**/*.ts", keywords: ["kw", "topic-1"] },
      body: "Body.",
      bodyLine: 6,
    });
  });
});
