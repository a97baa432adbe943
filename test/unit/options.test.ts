import { describe, expect, test } from "vitest";
import { DEFAULT_OPTIONS, parseOptions } from "../../src/options.js";
import { DEFAULT_MAX_RULE_BYTES } from "../../src/sources/discover.js";

describe("parseOptions", () => {
  test("no options: defaults, no errors", () => {
    for (const raw of [undefined, null, {}]) {
      const { options, errors } = parseOptions(raw, {});
      expect(errors).toEqual([]);
      expect(options).toEqual(DEFAULT_OPTIONS);
    }
    expect(DEFAULT_OPTIONS).toMatchObject({ debug: false, subagents: true, maxRuleBytes: DEFAULT_MAX_RULE_BYTES, extraDirs: [] });
    expect(DEFAULT_MAX_RULE_BYTES).toBe(64 * 1024);
  });

  test("valid values are taken", () => {
    const { options, errors } = parseOptions({ debug: true, subagents: false, maxRuleBytes: 1000 }, {});
    expect(errors).toEqual([]);
    expect(options).toMatchObject({ debug: true, subagents: false, maxRuleBytes: 1000 });
  });

  test.each([
    ["debug", "yes", 'option "debug" should be true or false, found "yes"; default false used'],
    ["debug", 1, 'option "debug" should be true or false, found 1; default false used'],
    ["subagents", "false", 'option "subagents" should be true or false, found "false"; default true used'],
    ["subagents", null, 'option "subagents" should be true or false, found null; default true used'],
    ["maxRuleBytes", 0, `option "maxRuleBytes" should be a positive whole number of bytes, found 0; default ${DEFAULT_MAX_RULE_BYTES} used`],
    ["maxRuleBytes", -5, `option "maxRuleBytes" should be a positive whole number of bytes, found -5; default ${DEFAULT_MAX_RULE_BYTES} used`],
    ["maxRuleBytes", 1.5, `option "maxRuleBytes" should be a positive whole number of bytes, found 1.5; default ${DEFAULT_MAX_RULE_BYTES} used`],
    ["maxRuleBytes", "64k", `option "maxRuleBytes" should be a positive whole number of bytes, found "64k"; default ${DEFAULT_MAX_RULE_BYTES} used`],
  ])("%s: %j is refused with a clear error and the default is used", (key, value, error) => {
    const { options, errors } = parseOptions({ [key]: value }, {});
    expect(errors).toEqual([error]);
    expect(options[key as keyof typeof options]).toEqual(DEFAULT_OPTIONS[key as keyof typeof DEFAULT_OPTIONS]);
  });

  test("maxRuleBytes: Infinity and NaN are refused", () => {
    expect(parseOptions({ maxRuleBytes: Infinity }, {}).options.maxRuleBytes).toBe(DEFAULT_MAX_RULE_BYTES);
    expect(parseOptions({ maxRuleBytes: Number.NaN }, {}).errors).toHaveLength(1);
  });

  test("an unknown option is reported and ignored; the others still apply", () => {
    const { options, errors } = parseOptions({ debgu: true, debug: true }, {});
    expect(options.debug).toBe(true);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^unknown option "debgu" ignored \(known: .*debug.*\)$/);
  });

  test("options that are not an object: defaults and an error", () => {
    for (const raw of [true, "debug", [1], 3]) {
      const { options, errors } = parseOptions(raw, {});
      expect(options).toEqual(DEFAULT_OPTIONS);
      expect(errors).toEqual([`options should be an object like { "debug": true }; found ${JSON.stringify(raw)}; defaults used`]);
    }
  });

  test("every problem is reported, not just the first", () => {
    expect(parseOptions({ debug: "x", subagents: "y", maxRuleBytes: "z", nope: 1 }, {}).errors).toHaveLength(4);
  });

  test("OPENCODE_RULEBOOK_DEBUG=1 turns debug on", () => {
    expect(parseOptions(undefined, { OPENCODE_RULEBOOK_DEBUG: "1" }).options.debug).toBe(true);
    expect(parseOptions({ debug: false }, { OPENCODE_RULEBOOK_DEBUG: "1" }).options.debug).toBe(true);
    expect(parseOptions(undefined, { OPENCODE_RULEBOOK_DEBUG: "true" }).options.debug).toBe(true);
  });

  test("other values of OPENCODE_RULEBOOK_DEBUG leave debug off", () => {
    for (const value of ["0", "", "false", undefined]) {
      expect(parseOptions(undefined, { OPENCODE_RULEBOOK_DEBUG: value }).options.debug).toBe(false);
    }
  });

  test("the real process environment is not consulted", () => {
    const saved = process.env.OPENCODE_RULEBOOK_DEBUG;
    process.env.OPENCODE_RULEBOOK_DEBUG = "1";
    try {
      expect(parseOptions(undefined, {}).options.debug).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.OPENCODE_RULEBOOK_DEBUG;
      else process.env.OPENCODE_RULEBOOK_DEBUG = saved;
    }
  });

  test("parsing does not change the defaults for the next call", () => {
    parseOptions({ debug: true, extraDirs: ["a"] }, {});
    expect(DEFAULT_OPTIONS.debug).toBe(false);
    expect(DEFAULT_OPTIONS.extraDirs).toEqual([]);
  });

  test("sources: unknown names are reported and dropped", () => {
    const { options, errors } = parseOptions({ sources: ["native", "nope"] }, {}, ["native", "cursor"]);
    expect(options.sources).toEqual(["native"]);
    expect(errors).toEqual(['option "sources" names unknown sources "nope" (known: native, cursor); they were ignored']);
  });
});

describe("parseOptions: sources, extraDirs, maxMessageBytes", () => {
  test("valid values are taken", () => {
    const { options, errors } = parseOptions({ sources: ["native", "cursor"], extraDirs: [".agents/rules"], maxMessageBytes: 2048 }, {}, ["native", "cursor", "kiro"]);
    expect(errors).toEqual([]);
    expect(options).toMatchObject({ sources: ["native", "cursor"], extraDirs: [".agents/rules"], maxMessageBytes: 2048 });
  });

  test("invalid values are reported, naming the option and the default used", () => {
    const { options, errors } = parseOptions({ sources: "native", extraDirs: [1], maxMessageBytes: -5 }, {}, ["native", "cursor"]);
    expect(errors).toEqual([
      'option "sources" should be a list of source names (native, cursor), found "native"; default (all) used',
      'option "extraDirs" should be a list of folder paths, found [1]; default [] used',
      'option "maxMessageBytes" should be a positive whole number of bytes, found -5; default 49152 used',
    ]);
    expect(options).toMatchObject({ sources: undefined, extraDirs: [], maxMessageBytes: 49152 });
  });

  test("unknown source names are reported and ignored; the known ones are kept", () => {
    const { options, errors } = parseOptions({ sources: ["native", "vim"] }, {}, ["native", "cursor"]);
    expect(errors).toEqual(['option "sources" names unknown sources "vim" (known: native, cursor); they were ignored']);
    expect(options.sources).toEqual(["native"]);
  });
});
