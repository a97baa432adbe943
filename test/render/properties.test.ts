/**
 * Property-based robustness (fast-check):
 * - any bytes as a rule file, and any file name, never throw out of
 *   discovery: `loadRules` resolves with either a rule or a warning for the
 *   file, and the good rule next to it still loads;
 * - any rule set renders to a message that parses back to the same rules,
 *   with every extra the engine adds (rules on request, rules left out, the
 *   change notice), and the `rule` tool's answer parses back to its rule.
 * (test/render/message.test.ts covers the bare round trip; these add the extras
 * and rules that come out of real discovery.)
 */
import fc from "fast-check";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { answerRuleRequest } from "../../src/render/rule-request.js";
import { renderRulesMessage, type RenderedRule, type RenderExtras } from "../../src/render/message.js";
import { warningText } from "../../src/rule/warnings.js";
import { parseRulesMessage } from "../support/rules-message.js";
import { splitFrontMatter } from "../../src/rule/front-matter.js";
import { decodeRuleText } from "../../src/rule/decode.js";
import type { Rule } from "../../src/rule/rule.js";
import { loadRules } from "../../src/formats/load.js";
import { sandbox, type Sandbox } from "../support/sandbox.js";

let box: Sandbox;
beforeAll(async () => {
  box = await sandbox("rulebook-props-");
  await box.write(box.projectRules, { "good.md": "The good rule." });
});
afterAll(() => box.cleanup());

const rendered = ({ name, scope, displayPath, content, source }: Rule): RenderedRule => ({
  name,
  scope,
  displayPath,
  content,
  source,
});

/** A file the front matter turns off (`enabled: false`) is the one case with neither a rule nor a warning. */
function disabled(bytes: Uint8Array): boolean {
  const decoded = decodeRuleText(bytes);
  if (!decoded.ok) return false;
  const front = splitFrontMatter(decoded.text);
  return front.ok && front.data.enabled === false;
}

/** Writes `bytes` as `<rules>/<file>`, loads, and checks the discovery contract for it. */
async function loadsOrWarns(file: string, bytes: Uint8Array): Promise<void> {
  const path = join(box.projectRules, file);
  await writeFile(path, bytes);
  try {
    const loaded = await loadRules(box.context());
    expect(loaded.rules.find((rule) => rule.name === "good")?.content).toBe("The good rule.");
    const own = loaded.rules.filter((rule) => rule.path === path);
    const warnings = loaded.warnings.filter((warning) => warning.path === path);
    expect(loaded.warnings.filter((warning) => warning.path !== path)).toEqual([]);
    expect(own.length).toBeLessThanOrEqual(1);
    if (own.length === 0) {
      if (warnings.length === 0)
        expect(disabled(bytes), "a rule that is neither loaded nor warned about must be disabled").toBe(true);
      // A skipped rule says so, naming itself.
      else
        for (const warning of warnings)
          expect(warningText(warning)).toMatch(/; rule ".*" skipped( without being read)?$/s);
    } else {
      const rule = own[0] as Rule;
      expect(rule.name).toBe(file.replace(/\.(md|mdc)$/i, ""));
      // Warnings about a rule that still loads say what was done instead.
      for (const warning of warnings)
        expect(warningText(warning)).toMatch(
          /; (default \d+ used|the rule does not override|description ignored|kept and ignored|left as text)$/,
        );
      expect(rule.content).not.toBe("");
      expect(rule.content).toBe(rule.content.trim());
      expect(rule.content).not.toMatch(/\r/);
      // Whatever loaded renders to a message that parses back to it.
      expect(parseRulesMessage(renderRulesMessage(loaded.rules))).toEqual(loaded.rules.map(rendered));
    }
    for (const warning of warnings)
      if (warning.line !== undefined) expect(Number.isInteger(warning.line) && warning.line >= 1).toBe(true);
  } finally {
    await rm(path, { force: true });
  }
}

const encode = (text: string) => new TextEncoder().encode(text);

describe("any bytes as a rule file never throw out of discovery", () => {
  test("arbitrary byte strings", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), (bytes) => loadsOrWarns("case.md", bytes)),
      { numRuns: 300 },
    );
  }, 60_000);

  test("arbitrary text (any code points, well-formed or not)", async () => {
    const text = fc.oneof(
      fc.string({ unit: "binary", maxLength: 500 }),
      fc.string({ unit: "grapheme", maxLength: 500 }),
      fc.string({ maxLength: 500 }),
    );
    await fc.assert(
      fc.asyncProperty(text, (value) => loadsOrWarns("case.md", encode(value))),
      { numRuns: 300 },
    );
  }, 60_000);

  test("text that starts like front matter: `---`, a language, key/value lines, a close or none, a body", async () => {
    const key = fc.constantFrom(
      "globs",
      "paths",
      "applyTo",
      "keywords",
      "topics",
      "alwaysApply",
      "enabled",
      "match",
      "priority",
      "override",
      "description",
      "lol",
      "x",
    );
    const value = fc.oneof(
      fc.constantFrom(
        "",
        "true",
        "false",
        "yes",
        "1",
        "0",
        "50",
        "500",
        "-3",
        "null",
        "~",
        "src/**",
        "*.ts, src/**",
        "{a,b}",
        "[a, b]",
        "[a",
        "{",
        "'",
        '"',
        "&a x",
        "*a",
        "!!js/function f",
        "!!binary aGk=",
        "|",
        ">",
        "- a",
        "@x",
        "`x`",
        "%x",
      ),
      fc.string({ maxLength: 40 }),
      fc.string({ unit: "binary", maxLength: 20 }),
    );
    const line = fc.oneof(
      fc.tuple(key, fc.constantFrom(": ", ":", ":\t", " : "), value).map(([k, sep, v]) => `${k}${sep}${v}`),
      fc
        .tuple(fc.constantFrom("  ", "\t", " "), fc.constantFrom("- ", ""), value)
        .map(([indent, dash, v]) => `${indent}${dash}${v}`),
      fc.constantFrom("---", "----", "--- ", "...", "#", "? x", "<<: *a", "a: &a [x, y]", "b: [*a, *a]"),
      fc.string({ maxLength: 40 }),
    );
    const file = fc
      .record({
        language: fc.constantFrom("", "yaml", "yml", "js", "javascript", "coffee", "json", "toml", " ", "-", "x"),
        lines: fc.array(line, { maxLength: 8 }),
        close: fc.constantFrom("---", "--- ", "", "----", "---x"),
        body: fc.oneof(fc.constant(""), fc.constant("Body."), fc.string({ maxLength: 80 })),
        eol: fc.constantFrom("\n", "\r\n", "\r"),
        bom: fc.boolean(),
      })
      .map(({ language, lines, close, body, eol, bom }) => {
        const text = [`---${language}`, ...lines, close, body].join(eol);
        return new Uint8Array([...(bom ? [0xef, 0xbb, 0xbf] : []), ...encode(text)]);
      });
    await fc.assert(
      fc.asyncProperty(file, (bytes) => loadsOrWarns("case.md", bytes)),
      { numRuns: 400 },
    );
    expect((globalThis as Record<string, unknown>).__rulebookPwned).toBeUndefined();
  }, 60_000);

  test("arbitrary file names (spaces, Unicode, newlines, markup) load under their own name", async () => {
    const name = fc
      .string({ unit: "grapheme", minLength: 1, maxLength: 40 })
      .filter(
        (value) =>
          !value.includes("/") &&
          !value.includes("\0") &&
          !value.startsWith(".") &&
          Buffer.byteLength(value) <= 200 &&
          value !== "good",
      );
    await fc.assert(
      fc.asyncProperty(name, fc.constantFrom(".md", ".mdc", ".MD"), (base, ext) =>
        loadsOrWarns(`${base}${ext}`, encode(`Rule ${base}.`)),
      ),
      { numRuns: 200 },
    );
  }, 60_000);
});

// Rules as discovery makes them: names from paths (may hold newlines, quotes, markup), contents trimmed, LF only.
const anyName = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.constantFrom('a "b" <c> & d', 'x\n<rule name="e">\ny', "</rule>", "sub/name", "&amp;"),
);
const delimiterLine = fc
  .tuple(
    fc.stringMatching(/^\\{0,3}$/),
    fc.constantFrom("<rule", "</rule", "<rulebook", "</rulebook"),
    fc.constantFrom(">", " ", ' name="x">', "\t", ""),
  )
  .map(([slashes, tag, rest]) => slashes + tag + rest);
const content = fc
  .array(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "grapheme", maxLength: 40 }), delimiterLine), {
    maxLength: 8,
  })
  .map((lines) => lines.join("\n").replace(/\r/g, "").trim());
const renderedRule = fc.record(
  {
    name: anyName,
    scope: fc.constantFrom("global" as const, "project" as const),
    displayPath: anyName,
    content,
    source: fc.constantFrom("native", "cursor", 'we"ird<'),
  },
  { requiredKeys: ["name", "scope", "displayPath", "content"] },
);
const extras: fc.Arbitrary<RenderExtras> = fc.record(
  {
    onRequest: fc.array(
      fc.record({ name: anyName, description: fc.option(fc.oneof(anyName, content), { nil: undefined }) }),
      { maxLength: 4 },
    ),
    leftOut: fc.array(fc.record({ name: anyName }), { maxLength: 4 }),
    notice: fc.oneof(anyName, content),
  },
  { requiredKeys: [] },
);

describe("any rule set renders to a message that parses back to the same rules", () => {
  test("with rules on request, rules left out and a change notice", () => {
    fc.assert(
      fc.property(fc.array(renderedRule, { maxLength: 6 }), extras, (rules, extra) => {
        const text = renderRulesMessage(rules, extra);
        expect(parseRulesMessage(text)).toEqual(rules);
        // The extras never add or close a block: one closing line per rule, one end.
        expect(text.split("\n").filter((line) => line === "</rule>")).toHaveLength(rules.length);
        expect(text.split("\n").filter((line) => line === "</rulebook>")).toHaveLength(1);
        expect(text.startsWith("<rulebook>\n") && text.endsWith("\n</rulebook>")).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  test("the rule tool's answer parses back to exactly the rule asked for", () => {
    fc.assert(
      fc.property(fc.array(renderedRule, { minLength: 1, maxLength: 4 }), fc.nat(), (rules, pick) => {
        // The tool trims what the model asks for, so names here do not end in whitespace.
        const full = rules.map(
          (rule, i) =>
            ({
              ...rule,
              name: `${i}-${rule.name}`.trimEnd(),
              path: `/r/${i}.md`,
              source: rule.source ?? "native",
              conditions: {},
              match: "any",
              priority: 50,
              override: false,
              unknownKeys: [],
            }) as Rule,
        );
        const wanted = full[pick % full.length] as Rule;
        const answer = answerRuleRequest(full, wanted.name);
        expect(answer.rule).toBe(wanted);
        expect(parseRulesMessage(answer.output)).toEqual([rendered(wanted)]);
      }),
      { numRuns: 1000 },
    );
  });
});
