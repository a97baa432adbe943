/** `packs add` / `packs remove` in OpenCode's config text (src/cli/pack-options-edit.ts): every entry form, comments and layout kept. */
import { type ParseError, parse } from "jsonc-parser";
import { describe, expect, test } from "vitest";
import { addPackToConfig, removePackFromConfig } from "../../src/cli/pack-options-edit.js";

const isRulebook = (spec: string) => spec.startsWith("opencode-rulebook");
const spec = "github:acme/rules#v2";

function added(text: string, pack = spec): string {
  const result = addPackToConfig(text, pack, isRulebook);
  if ("error" in result) throw new Error(result.error);
  expect(result.changed).toBe(true);
  value(result.text);
  return result.text;
}
function removed(text: string, pack = spec): string {
  const result = removePackFromConfig(text, pack, isRulebook);
  if ("error" in result) throw new Error(result.error);
  value(result.text);
  return result.text;
}
/** The config's value; the text must still be JSON with comments. */
function value(text: string) {
  const errors: ParseError[] = [];
  const parsed = parse(text, errors, { allowTrailingComma: true });
  expect(errors).toEqual([]);
  return parsed;
}

describe("addPackToConfig", () => {
  test("empty text: a new config with its $schema", () => {
    const text = added("  \n");
    expect(text).toBe(
      '{\n  "$schema": "https://opencode.ai/config.json",\n  "plugin": [["opencode-rulebook", { "packs": ["github:acme/rules#v2"] }]]\n}\n',
    );
    expect(value(text)).toEqual({
      $schema: "https://opencode.ai/config.json",
      plugin: [["opencode-rulebook", { packs: [spec] }]],
    });
  });

  test('a string entry in "plugin" becomes [spec, { packs }], comments and other entries kept', () => {
    const before = '{\n  // our plugins\n  "plugin": ["other", "opencode-rulebook@0.1"] // pinned\n}\n';
    expect(added(before)).toBe(
      '{\n  // our plugins\n  "plugin": ["other", ["opencode-rulebook@0.1", { "packs": ["github:acme/rules#v2"] }]] // pinned\n}\n',
    );
  });

  test("a tuple entry: packs added to its options, or the options made", () => {
    expect(added('{ "plugin": [["opencode-rulebook", { "debug": true /* on */ }]] }')).toBe(
      '{ "plugin": [["opencode-rulebook", { "debug": true, "packs": ["github:acme/rules#v2"] /* on */ }]] }',
    );
    expect(added('{ "plugin": [["opencode-rulebook"]] }')).toBe(
      '{ "plugin": [["opencode-rulebook", { "packs": ["github:acme/rules#v2"] }]] }',
    );
    expect(added('{ "plugin": [["opencode-rulebook", {}]] }')).toBe(
      '{ "plugin": [["opencode-rulebook", { "packs": ["github:acme/rules#v2"] }]] }',
    );
    expect(added('{ "plugin": [["opencode-rulebook", { "packs": ["./rules"] }]] }')).toBe(
      '{ "plugin": [["opencode-rulebook", { "packs": ["./rules", "github:acme/rules#v2"] }]] }',
    );
  });

  test("a list spread over lines gets a line of its own, with the same indent", () => {
    const before = [
      "{",
      '  "plugin": [',
      '    ["opencode-rulebook", {',
      '      "packs": [',
      '        "./rules", // ours',
      '        "@acme/opencode-rules"',
      "      ]",
      "    }]",
      "  ]",
      "}",
      "",
    ].join("\n");
    expect(added(before)).toBe(
      before.replace('"@acme/opencode-rules"', '"@acme/opencode-rules",\n        "github:acme/rules#v2"'),
    );
    expect(added(before.replaceAll("\n", "\r\n"))).toContain(
      '"@acme/opencode-rules",\r\n        "github:acme/rules#v2"',
    );
  });

  test("a comment that ends the last item's line stays with that item", () => {
    const before = '{\n  "plugin": [["opencode-rulebook", {\n    "packs": [\n      "a" // team A\n    ]\n  }]]\n}\n';
    expect(added(before)).toBe(before.replace('"a" // team A', '"a", // team A\n      "github:acme/rules#v2"'));
    const trailingComma = before.replace('"a" // team A', '"a", /* team A */');
    expect(added(trailingComma)).toBe(
      before.replace('"a" // team A', '"a", /* team A */\n      "github:acme/rules#v2"'),
    );
    expect(added(before.replaceAll("\n", "\r\n"))).toBe(
      before.replace('"a" // team A', '"a", // team A\n      "github:acme/rules#v2"').replaceAll("\n", "\r\n"),
    );
    expect(value(added(trailingComma)).plugin[0][1].packs).toEqual(["a", spec]);
  });

  test('OpenCode 2\'s "plugins": a string entry becomes { package, options }, an object entry gets packs in its options', () => {
    expect(added('{ "plugins": ["opencode-rulebook"] }')).toBe(
      '{ "plugins": [{ "package": "opencode-rulebook", "options": { "packs": ["github:acme/rules#v2"] } }] }',
    );
    expect(added('{ "plugins": [{ "package": "opencode-rulebook" }] }')).toBe(
      '{ "plugins": [{ "package": "opencode-rulebook", "options": { "packs": ["github:acme/rules#v2"] } }] }',
    );
    expect(added('{ "plugins": [{ "package": "opencode-rulebook", "options": { "debug": true } }] }')).toBe(
      '{ "plugins": [{ "package": "opencode-rulebook", "options": { "debug": true, "packs": ["github:acme/rules#v2"] } }] }',
    );
  });

  test("no entry for the plugin: one is added to the list there is, else a plugin list is made", () => {
    expect(added('{\n  "model": "x" // the model\n}\n')).toBe(
      '{\n  "model": "x", // the model\n  "plugin": [["opencode-rulebook", { "packs": ["github:acme/rules#v2"] }]]\n}\n',
    );
    expect(added("{}")).toBe('{\n  "plugin": [["opencode-rulebook", { "packs": ["github:acme/rules#v2"] }]]\n}');
    expect(added('{ "plugin": ["other"] }')).toBe(
      '{ "plugin": ["other", ["opencode-rulebook", { "packs": ["github:acme/rules#v2"] }]] }',
    );
    expect(added('{ "plugin": [] }')).toBe(
      '{ "plugin": [["opencode-rulebook", { "packs": ["github:acme/rules#v2"] }]] }',
    );
    expect(added('{ "plugins": ["other"] }')).toBe(
      '{ "plugins": ["other", { "package": "opencode-rulebook", "options": { "packs": ["github:acme/rules#v2"] } }] }',
    );
  });

  test("the last entry that names the plugin is the one edited (OpenCode reads its options)", () => {
    const before =
      '{ "plugin": [["opencode-rulebook", { "debug": true }]], "plugins": [{ "package": "opencode-rulebook", "options": {} }] }';
    expect(value(added(before))).toEqual({
      plugin: [["opencode-rulebook", { debug: true }]],
      plugins: [{ package: "opencode-rulebook", options: { packs: [spec] } }],
    });
  });

  test("adding a pack already there changes nothing", () => {
    const before = '{ "plugin": [["opencode-rulebook", { "packs": ["github:acme/rules#v2"] }]] }';
    expect(addPackToConfig(before, spec, isRulebook)).toEqual({ text: before, changed: false });
    const once = added('{ "plugin": ["opencode-rulebook"] }');
    expect(addPackToConfig(once, spec, isRulebook)).toEqual({ text: once, changed: false });
  });

  test("a config that cannot be edited is an error sentence", () => {
    expect(addPackToConfig('{\n  "plugin": [\n    "x",,\n  ]\n}', spec, isRulebook)).toEqual({
      error: "the config is not JSON with comments: value expected on line 3",
    });
    expect(addPackToConfig("[]", spec, isRulebook)).toEqual({ error: expect.stringMatching(/not a JSON object/) });
    expect(addPackToConfig('{ "plugin": "opencode-rulebook" }', spec, isRulebook)).toEqual({
      error: expect.stringMatching(/"plugin" is not a list/),
    });
    expect(addPackToConfig('{ "plugin": [["opencode-rulebook", true]] }', spec, isRulebook)).toEqual({
      error: expect.stringMatching(/options are not an object/),
    });
    expect(addPackToConfig('{ "plugin": [["opencode-rulebook", { "packs": "x" }]] }', spec, isRulebook)).toEqual({
      error: expect.stringMatching(/"packs" option is not a list/),
    });
  });
});

describe("removePackFromConfig", () => {
  test("removes the pack, keeping the others and the comments", () => {
    const before =
      '{\n  // packs\n  "plugin": [["opencode-rulebook", { "packs": ["./rules", "github:acme/rules#v2", "x"] }]]\n}\n';
    expect(removed(before)).toBe(
      '{\n  // packs\n  "plugin": [["opencode-rulebook", { "packs": ["./rules", "x"] }]]\n}\n',
    );
    expect(removed(before, "x")).toBe(before.replace(', "x"', ""));
  });

  test('removing the last pack leaves "packs": []', () => {
    expect(removed('{ "plugin": [["opencode-rulebook", { "packs": ["github:acme/rules#v2"] }]] }')).toBe(
      '{ "plugin": [["opencode-rulebook", { "packs": [] }]] }',
    );
    expect(
      removed(
        '{ "plugins": [{ "package": "opencode-rulebook", "options": { "packs": [\n  "github:acme/rules#v2"\n] } }] }',
      ),
    ).toBe('{ "plugins": [{ "package": "opencode-rulebook", "options": { "packs": [] } }] }');
  });

  test("a list spread over lines loses the pack's line", () => {
    const before =
      '{\n  "plugin": [["opencode-rulebook", {\n    "packs": [\n      "a",\n      "github:acme/rules#v2",\n      "b"\n    ]\n  }]]\n}\n';
    expect(removed(before)).toBe(
      '{\n  "plugin": [["opencode-rulebook", {\n    "packs": [\n      "a",\n      "b"\n    ]\n  }]]\n}\n',
    );
    expect(removed(removed(before), "b")).toBe(
      '{\n  "plugin": [["opencode-rulebook", {\n    "packs": [\n      "a"\n    ]\n  }]]\n}\n',
    );
  });

  test("an item's own comment goes with it; the others keep theirs", () => {
    const lines = (...items: string[]) =>
      `{\n  "plugin": [["opencode-rulebook", { "packs": [ // team packs\n${items.map((item) => `    ${item}\n`).join("")}  ] }]]\n}\n`;
    expect(removed(lines('"a", // A', `"${spec}", // B`, '"c" // C'))).toBe(lines('"a", // A', '"c" // C'));
    expect(removed(lines('"a", // A', `"${spec}" // B`))).toBe(lines('"a" // A'));
    expect(removed(lines('"a", /* A, a */', `"${spec}", /* B */`))).toBe(lines('"a" /* A, a */'));
    expect(removed(lines(`"${spec}", // B`))).toBe(lines());
    expect(removed(lines(`"${spec}", // B`, '"a"'))).toBe(lines('"a"'));
    expect(removed('{ "plugin": [["opencode-rulebook", { "packs": [/* only */ "github:acme/rules#v2",] }]] }')).toBe(
      '{ "plugin": [["opencode-rulebook", { "packs": [/* only */ ] }]] }',
    );
    for (const text of [lines('"a", // A', `"${spec}" // B`), lines(`"${spec}", // B`)])
      expect(value(removed(text)).plugin[0][1].packs).not.toContain(spec);
  });

  test("a spec written twice goes entirely; add then remove gives the text back", () => {
    expect(
      removed(
        '{ "plugin": [["opencode-rulebook", { "packs": ["github:acme/rules#v2", "a", "github:acme/rules#v2"] }]] }',
      ),
    ).toBe('{ "plugin": [["opencode-rulebook", { "packs": ["a"] }]] }');
    const before = '{ "plugin": [["opencode-rulebook", { "packs": ["a"] }]] }';
    expect(removed(added(before))).toBe(before);
  });

  test("nothing to remove: unchanged", () => {
    for (const text of [
      "",
      '{ "plugin": ["opencode-rulebook"] }',
      '{ "plugin": [["opencode-rulebook", { "packs": ["a"] }]] }',
      '{ "model": "x" }',
    ]) {
      expect(removePackFromConfig(text, spec, isRulebook)).toEqual({ text, changed: false });
    }
    const changed = removePackFromConfig(
      '{ "plugin": [["opencode-rulebook", { "packs": ["github:acme/rules#v2"] }]] }',
      spec,
      isRulebook,
    );
    expect(changed).toMatchObject({ changed: true });
  });

  test("a config that cannot be read is an error sentence", () => {
    expect(removePackFromConfig("{ oops", spec, isRulebook)).toEqual({
      error: expect.stringMatching(/^the config is not JSON with comments: .* on line 1$/),
    });
  });
});
