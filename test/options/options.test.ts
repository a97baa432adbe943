import { describe, expect, test } from "vitest";
import {
  DEFAULT_OPTIONS,
  MAX_LIST_ENTRIES,
  MAX_MESSAGE_BYTES_LIMIT,
  MAX_RULE_BYTES_LIMIT,
  MIN_MESSAGE_BYTES,
  MIN_RULE_BYTES,
  parseOptions,
} from "../../src/options.js";
import { DEFAULT_MAX_RULE_BYTES } from "../../src/discover/discover.js";

describe("parseOptions", () => {
  test("no options: defaults, no errors", () => {
    for (const raw of [undefined, null, {}]) {
      const { options, errors } = parseOptions(raw, {});
      expect(errors).toEqual([]);
      expect(options).toEqual(DEFAULT_OPTIONS);
    }
    expect(DEFAULT_OPTIONS).toMatchObject({
      debug: false,
      subagents: true,
      maxRuleBytes: DEFAULT_MAX_RULE_BYTES,
      extraDirs: [],
    });
    expect(DEFAULT_MAX_RULE_BYTES).toBe(64 * 1024);
  });

  test("valid values are taken", () => {
    const { options, errors } = parseOptions({ debug: true, subagents: false, maxRuleBytes: 1024 }, {});
    expect(errors).toEqual([]);
    expect(options).toMatchObject({ debug: true, subagents: false, maxRuleBytes: 1024 });
  });

  test.each([
    ["debug", "yes", 'option "debug" should be true or false, found "yes"; default false used'],
    ["debug", 1, 'option "debug" should be true or false, found 1; default false used'],
    ["subagents", "false", 'option "subagents" should be true or false, found "false"; default true used'],
    ["subagents", null, 'option "subagents" should be true or false, found null; default true used'],
    [
      "maxRuleBytes",
      0,
      `option "maxRuleBytes" should be a whole number of bytes from 1024 to 16777216, found 0; default ${DEFAULT_MAX_RULE_BYTES} used`,
    ],
    [
      "maxRuleBytes",
      -5,
      `option "maxRuleBytes" should be a whole number of bytes from 1024 to 16777216, found -5; default ${DEFAULT_MAX_RULE_BYTES} used`,
    ],
    [
      "maxRuleBytes",
      1.5,
      `option "maxRuleBytes" should be a whole number of bytes from 1024 to 16777216, found 1.5; default ${DEFAULT_MAX_RULE_BYTES} used`,
    ],
    [
      "maxRuleBytes",
      "64k",
      `option "maxRuleBytes" should be a whole number of bytes from 1024 to 16777216, found "64k"; default ${DEFAULT_MAX_RULE_BYTES} used`,
    ],
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
      expect(errors).toEqual([
        `options should be an object like { "debug": true }; found ${JSON.stringify(raw)}; defaults used`,
      ]);
    }
  });

  test("every problem is reported, not just the first", () => {
    expect(parseOptions({ debug: "x", subagents: "y", maxRuleBytes: "z", nope: 1 }, {}).errors).toHaveLength(4);
  });

  test("the record is kept by default; `record: false` or OPENCODE_RULEBOOK_RECORD=0/false/off/no turns it off", () => {
    expect(parseOptions(undefined, {}).options.record).toBe(true);
    expect(parseOptions({ record: false }, {}).options.record).toBe(false);
    for (const value of ["0", "false", "off", "no", " OFF "])
      expect(parseOptions({ record: true }, { OPENCODE_RULEBOOK_RECORD: value }).options.record).toBe(false);
    for (const value of ["1", "", "yes", undefined])
      expect(parseOptions(undefined, { OPENCODE_RULEBOOK_RECORD: value }).options.record).toBe(true);
    expect(parseOptions({ record: "no" }, {}).errors).toEqual([
      'option "record" should be true or false, found "no"; default true used',
    ]);
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
    expect(errors).toEqual([
      'option "sources" names unknown sources "nope" (known: native, cursor); they were ignored',
    ]);
  });
});

describe("parseOptions: sources, extraDirs, maxMessageBytes", () => {
  test("valid values are taken", () => {
    const { options, errors } = parseOptions(
      { sources: ["native", "cursor"], extraDirs: [".agents/rules"], maxMessageBytes: 2048 },
      {},
      ["native", "cursor", "kiro"],
    );
    expect(errors).toEqual([]);
    expect(options).toMatchObject({
      sources: ["native", "cursor"],
      extraDirs: [".agents/rules"],
      maxMessageBytes: 2048,
    });
  });

  test("invalid values are reported, naming the option and the default used", () => {
    const { options, errors } = parseOptions({ sources: "native", extraDirs: [1], maxMessageBytes: -5 }, {}, [
      "native",
      "cursor",
    ]);
    expect(errors).toEqual([
      'option "sources" should be a list of at most 32 source names (native, cursor), found "native"; default (all) used',
      'option "extraDirs" should be a list of at most 32 folder paths, each 1 to 4096 characters, found [1]; default [] used',
      'option "maxMessageBytes" should be a whole number of bytes from 512 to 4194304, found -5; default 49152 used',
    ]);
    expect(options).toMatchObject({ sources: undefined, extraDirs: [], maxMessageBytes: 49152 });
  });

  test("unknown source names are reported and ignored; the known ones are kept", () => {
    const { options, errors } = parseOptions({ sources: ["native", "vim"] }, {}, ["native", "cursor"]);
    expect(errors).toEqual(['option "sources" names unknown sources "vim" (known: native, cursor); they were ignored']);
    expect(options.sources).toEqual(["native"]);
  });
});

describe("parseOptions: values that would break reading are refused", () => {
  test("the bounds are what the errors say", () => {
    expect([
      MIN_RULE_BYTES,
      MAX_RULE_BYTES_LIMIT,
      MIN_MESSAGE_BYTES,
      MAX_MESSAGE_BYTES_LIMIT,
      MAX_LIST_ENTRIES,
    ]).toEqual([1024, 16 * 1024 * 1024, 512, 4 * 1024 * 1024, 32]);
  });

  test.each([
    [
      "maxRuleBytes",
      2 ** 40,
      `option "maxRuleBytes" should be a whole number of bytes from 1024 to 16777216, found 1099511627776; default ${DEFAULT_MAX_RULE_BYTES} used`,
    ],
    [
      "maxRuleBytes",
      1e9,
      `option "maxRuleBytes" should be a whole number of bytes from 1024 to 16777216, found 1000000000; default ${DEFAULT_MAX_RULE_BYTES} used`,
    ],
    [
      "maxRuleBytes",
      1023,
      `option "maxRuleBytes" should be a whole number of bytes from 1024 to 16777216, found 1023; default ${DEFAULT_MAX_RULE_BYTES} used`,
    ],
    [
      "maxRuleBytes",
      16 * 1024 * 1024 + 1,
      `option "maxRuleBytes" should be a whole number of bytes from 1024 to 16777216, found 16777217; default ${DEFAULT_MAX_RULE_BYTES} used`,
    ],
    [
      "maxMessageBytes",
      1e9,
      'option "maxMessageBytes" should be a whole number of bytes from 512 to 4194304, found 1000000000; default 49152 used',
    ],
    [
      "maxMessageBytes",
      4 * 1024 * 1024 + 1,
      'option "maxMessageBytes" should be a whole number of bytes from 512 to 4194304, found 4194305; default 49152 used',
    ],
    [
      "maxMessageBytes",
      100,
      'option "maxMessageBytes" should be a whole number of bytes from 512 to 4194304, found 100; default 49152 used',
    ],
    [
      "maxMessageBytes",
      511,
      'option "maxMessageBytes" should be a whole number of bytes from 512 to 4194304, found 511; default 49152 used',
    ],
  ])("%s: %d is out of range; the default is used", (key, value, error) => {
    const { options, errors } = parseOptions({ [key]: value }, {});
    expect(errors).toEqual([error]);
    expect(options[key as keyof typeof options]).toEqual(DEFAULT_OPTIONS[key as keyof typeof DEFAULT_OPTIONS]);
  });

  test("the bounds themselves are accepted", () => {
    const low = parseOptions({ maxRuleBytes: 1024, maxMessageBytes: 512 }, {});
    expect(low.errors).toEqual([]);
    expect(low.options).toMatchObject({ maxRuleBytes: 1024, maxMessageBytes: 512 });
    const high = parseOptions({ maxRuleBytes: 16 * 1024 * 1024, maxMessageBytes: 4 * 1024 * 1024 }, {});
    expect(high.errors).toEqual([]);
    expect(high.options).toMatchObject({ maxRuleBytes: 16 * 1024 * 1024, maxMessageBytes: 4 * 1024 * 1024 });
  });

  test("extraDirs: 32 folders are taken, 33 are refused", () => {
    const dirs = Array.from({ length: 32 }, (_, i) => `rules/${i}`);
    expect(parseOptions({ extraDirs: dirs }, {})).toEqual({
      options: expect.objectContaining({ extraDirs: dirs }),
      errors: [],
    });
    const { options, errors } = parseOptions({ extraDirs: [...dirs, "one/more"] }, {});
    expect(options.extraDirs).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^option "extraDirs" should be a list of at most 32 folder paths, each 1 to 4096 characters, found \["rules\/0",.*…; default \[\] used$/,
    );
  });

  test("extraDirs: an empty or over-long path refuses the list", () => {
    expect(parseOptions({ extraDirs: ["a".repeat(4096)] }, {}).errors).toEqual([]);
    for (const bad of [[""], ["a".repeat(4097)], ["ok", "a".repeat(100_000)]]) {
      const { options, errors } = parseOptions({ extraDirs: bad }, {});
      expect(options.extraDirs).toEqual([]);
      expect(errors).toHaveLength(1);
      // A huge value is quoted only in part, so one bad option cannot flood the log.
      expect(errors[0]!.length).toBeLessThan(300);
    }
  });

  test("sources: more than 32 names, or an over-long name, refuses the list; all sources are read", () => {
    const many = Array.from({ length: 33 }, () => "native");
    for (const bad of [many, ["x".repeat(65)]]) {
      const { options, errors } = parseOptions({ sources: bad }, {}, ["native", "cursor"]);
      expect(options.sources).toBeUndefined();
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        /^option "sources" should be a list of at most 32 source names \(native, cursor\), found .*; default \(all\) used$/,
      );
    }
  });

  test("a huge unknown option name is quoted only in part", () => {
    const { errors } = parseOptions({ ["k".repeat(100_000)]: 1 }, {});
    expect(errors).toHaveLength(1);
    expect(errors[0]!.length).toBeLessThan(300);
  });
});
