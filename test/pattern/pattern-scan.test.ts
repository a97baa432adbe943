/**
 * Scanning lines for forbidden patterns: the hits, long lines in windows that
 * miss nothing and invent nothing, and a deadline that holds against
 * patterns built to be slow.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { type ForbidPattern, MAX_PATTERN_LENGTH, readForbidPattern } from "../../src/pattern/forbid-pattern.js";
import {
  MAX_GROUP_SIZE,
  patternScanner,
  type ScanBudget,
  scanCore,
  WINDOW,
  WINDOW_OVERLAP,
  windowsOf,
} from "../../src/pattern/pattern-scan.js";
import { HEAVY_GROUP_SIZE, isHeavy } from "../../src/pattern/scan-groups.js";
import { prepareSets, scanInSlices } from "../../src/pattern/scan-slices.js";

function read(written: string): ForbidPattern {
  const result = readForbidPattern(written);
  if ("problem" in result) throw new Error(`${written} ${result.problem}`);
  return result.pattern;
}

const NO_DEADLINE: ScanBudget = { now: () => 0, deadline: Infinity };

/** The hits of `written` patterns in `units`, as [pattern, unit] pairs. */
const hits = (written: readonly string[], units: readonly string[]) =>
  patternScanner(written.map(read))(units, NO_DEADLINE).hits.map((hit) => [hit.pattern, hit.unit]);

/** A clock that moves one tick each time it is read. */
function tickingClock(deadline: number) {
  let ticks = 0;
  return { now: () => ticks++, deadline, reads: () => ticks };
}

/** Random a/b text from a seed: the same every run. */
function abText(length: number, seed = 1): string {
  let state = seed;
  const chars: string[] = [];
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    chars.push(state & 65536 ? "a" : "b");
  }
  return chars.join("");
}

describe("hits", () => {
  test("each pattern, each line it is in, once, by line then pattern", () => {
    const units = ["const a: any = 1; // console.log(", "ok", "console.log(1); console.log(2)", "let b:any"];
    expect(hits(["console.log(", "/:\\s*any\\b/"], units)).toEqual([
      [0, 0],
      [1, 0],
      [0, 2],
      [1, 3],
    ]);
  });

  test("no pattern, no line: nothing found, and the scan is complete", () => {
    expect(patternScanner([])(["anything"], NO_DEADLINE)).toEqual({ hits: [], complete: true });
    expect(patternScanner([read("x")])([], NO_DEADLINE)).toEqual({ hits: [], complete: true });
  });

  test("patterns past one set's size are found too, each under its own index", () => {
    const written = Array.from({ length: 2500 }, (_, i) => `call_${i}(`);
    expect(written.map(read).reduce((sum, pattern) => sum + pattern.size, 0)).toBeGreaterThan(2 * MAX_GROUP_SIZE);
    const units = ["call_7(x)", "call_2499(y) call_750(z)", "call_(none)"];
    expect(hits(written, units)).toEqual([
      [7, 0],
      [750, 1],
      [2499, 1],
    ]);
  });
});

describe("long lines, in windows", () => {
  test("windows cover the line, overlapping by the longest pattern", () => {
    expect(windowsOf(WINDOW)).toEqual([{ from: 0, to: WINDOW, cut: 0 }]);
    const windows = windowsOf(3000);
    expect(windows[0]!.from).toBe(0);
    expect(windows[windows.length - 1]!.to).toBe(3000);
    for (const [i, window] of windows.entries()) {
      if (i > 0) expect(windows[i - 1]!.to - 1 - (window.from + 1)).toBeGreaterThanOrEqual(MAX_PATTERN_LENGTH);
    }
  });

  test("^, $ and \\b hold at the line's ends, never where a window cuts it", () => {
    const [first, , third] = windowsOf(5000);
    const at = (index: number, text: string) => `${"x".repeat(index)}${text}${"x".repeat(5000 - index - text.length)}`;
    const patterns = ["/^import/", "/import/", "/\\bimport\\b/", "/ximport/", "/y$/", "/x$/", "/^x/"];
    // A window of the line starts on "import" (its context character), or just after.
    expect(hits(patterns, [at(third!.from, "import"), at(third!.from + 1, "import")])).toEqual([
      [1, 0],
      [3, 0],
      [5, 0],
      [6, 0],
      [1, 1],
      [3, 1],
      [5, 1],
      [6, 1],
    ]);
    // A window of the line ends on "y" (its context character), or just before.
    expect(hits(["/y$/", "/\\by\\b/", "/xy/"], [at(first!.to - 1, "y"), at(first!.to - 2, "y")])).toEqual([
      [2, 0],
      [2, 1],
    ]);
    expect(hits(["/^import/", "/\\bimport\\b/", "/y$/"], [`import ${"x".repeat(5000)} y`])).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
    ]);
  });

  test("a literal of the longest length allowed is found at every position of a line four windows long", () => {
    const literal = "abcdefghij".repeat(MAX_PATTERN_LENGTH / 10);
    const scan = patternScanner([read(literal)]);
    const missed: number[] = [];
    for (let at = 0; at <= 4 * (WINDOW - WINDOW_OVERLAP); at++) {
      const line = `${"c".repeat(at)}${literal}${"c".repeat(WINDOW)}`;
      if (scan([line], NO_DEADLINE).hits.length !== 1) missed.push(at);
    }
    expect(missed).toEqual([]);
  });

  test("property: a literal up to the longest allowed is found wherever it lies, across any window's end, and only where it is", () => {
    const step = WINDOW - WINDOW_OVERLAP;
    const placed = fc
      .record({
        text: fc.string({ unit: fc.constantFrom("a", "b", "(", "."), minLength: 1, maxLength: MAX_PATTERN_LENGTH }),
        window: fc.nat({ max: 6 }),
        back: fc.nat({ max: MAX_PATTERN_LENGTH }),
        after: fc.nat({ max: 2000 }),
      })
      .map(({ text, window, back, after }) => ({
        text,
        before: Math.max(0, window * step + WINDOW - Math.min(back, text.length)),
        after,
      }));
    fc.assert(
      fc.property(placed, ({ text, before, after }) => {
        const line = `${"c".repeat(before)}${text}${"d".repeat(after)}`;
        expect(hits([text, `c${text}d`], [line])).toEqual(
          before > 0 && after > 0
            ? [
                [0, 0],
                [1, 0],
              ]
            : [[0, 0]],
        );
      }),
      { numRuns: 100 },
    );
  });

  test("property: /^…/ and /…$/ match exactly where startsWith and endsWith do, however long the line", () => {
    const part = fc.string({ unit: fc.constantFrom("a", "b"), minLength: 1, maxLength: 20 });
    const line = fc.string({ unit: fc.constantFrom("a", "b"), maxLength: 4000 });
    fc.assert(
      fc.property(part, line, (word, text) => {
        const found = hits([`/^${word}/`, `/${word}$/`], [text]).map(([pattern]) => pattern);
        expect(found).toEqual([...(text.startsWith(word) ? [0] : []), ...(text.endsWith(word) ? [1] : [])]);
      }),
      { numRuns: 60 },
    );
  });
});

describe("bounded time", () => {
  test("/(a+)+$/, catastrophic for a backtracking engine, is fast and right on 50,000 a's", () => {
    const scan = patternScanner([read("/(a+)+$/")]);
    const start = performance.now();
    expect(scan([`${"a".repeat(50_000)}b`], NO_DEADLINE)).toEqual({ hits: [], complete: true });
    expect(scan(["a".repeat(50_000)], NO_DEADLINE)).toEqual({ hits: [{ pattern: 0, unit: 0 }], complete: true });
    expect(performance.now() - start).toBeLessThan(1000);
  });

  test("the deadline is checked before every step: what was found before it stays", () => {
    const clock = tickingClock(2);
    expect(patternScanner([read("x")])(["x", "x", "x", "x", "x"], clock)).toEqual({
      hits: [0, 1, 2].map((unit) => ({ pattern: 0, unit })),
      complete: false,
      // The pattern was not scanned against every unit: it is named as not reached.
      unreached: [0],
    });
    expect(patternScanner([read("x")])(["x", "x", "x"], tickingClock(2)).complete).toBe(true);
  });

  test("a long line is stepped through window by window: a deadline of 3 ticks scans 4 windows of a 1 MiB line", () => {
    const clock = tickingClock(3);
    const result = patternScanner([read("/[ab]*a[ab]{40}c/")])([abText(1 << 20)], clock);
    expect(result).toEqual({ hits: [], complete: false, unreached: [0] });
    expect(clock.reads()).toBe(5);
  });

  test("200 adversarial patterns against 1 MiB of a/b: the scan stops at a 300 ms deadline, not minutes later", () => {
    const patterns = Array.from({ length: 200 }, (_, i) => read(`/[ab]*a[ab]{${30 + (i % 20)}}c${i}/`));
    const text = abText(1 << 20);
    const start = performance.now();
    const result = patternScanner(patterns)([text], { now: () => performance.now(), deadline: start + 300 });
    expect(result.complete).toBe(false);
    // One step (a group against a window) takes ~100 ms here; the whole text would take minutes.
    expect(performance.now() - start).toBeLessThan(2000);
  });
});

describe("scanning in slices", () => {
  const heavy = Array.from({ length: 50 }, (_, i) => read(`/(a|b|c|d)*a(a|b|c|d){${150 + i}}x${i}/`));
  const units = Array.from({ length: 50 }, (_, i) => `${"abcd".repeat(1000)}${i}`);

  test("finds what the one-go scan finds, pausing every slice", async () => {
    const patterns = [read("console.log("), read("/\\bany\\b/")];
    const lines = ["let x: any = 1", "console.log(x)", "ok"];
    let pauses = 0;
    const sliced = await scanInSlices(scanCore(patterns), lines, {
      ...NO_DEADLINE,
      sliceMs: -1,
      pause: async () => void pauses++,
    });
    expect(sliced).toEqual(patternScanner(patterns)(lines, NO_DEADLINE));
    expect(pauses).toBeGreaterThan(0);
  });

  test("past the deadline it stops, naming the patterns of the groups it did not finish", async () => {
    const start = performance.now();
    const result = await scanInSlices(scanCore(heavy, { groupSize: 2_500 }), units, {
      now: () => performance.now(),
      deadline: start + 50,
      sliceMs: 10,
      pause: () => new Promise((resolve) => setImmediate(resolve)),
    });
    expect(result.complete).toBe(false);
    expect(result.unreached?.length).toBeGreaterThan(0);
    expect(result.unreached?.every((index) => index >= 0 && index < heavy.length)).toBe(true);
  });

  test("the sets can be built ahead, and building stops when told", async () => {
    const core = scanCore(heavy, { groupSize: 2_500 });
    let calls = 0;
    await prepareSets(core, { now: () => performance.now(), sliceMs: 5, pause: async () => {} }, () => ++calls > 2);
    expect(core.groups.flatMap((group) => group.sets.filter(Boolean)).length).toBe(2);
    await prepareSets(core, { now: () => performance.now(), sliceMs: 5, pause: async () => {} });
    expect(core.groups.every((group) => group.sets[0] !== undefined)).toBe(true);
  });
});

describe("patterns the DFA may give up on are matched in smaller sets", () => {
  test("a counted repeat of 8 or more, or more than 48 instructions, is heavy; literals and ordinary expressions are not", () => {
    expect(
      ["/[ab]*a[ab]{40}c/", "/(a|b|c|d)*a(a|b|c|d){150}x/", "/x{2,9}/", `/${"[ab]".repeat(60)}/`].map((written) =>
        isHeavy(read(written)),
      ),
    ).toEqual([true, true, true, true]);
    expect(
      [
        "console.log(",
        `${"x".repeat(400)}{40}`,
        "/\\bgit\\s+push\\b.*\\s(-f|--force)(\\s|$)/",
        "/:\\s*any\\b/",
        "/x{3,}/",
        "/(a+)+$/",
      ].map((written) => isHeavy(read(written))),
    ).toEqual([false, false, false, false, false, false]);
  });

  test("heavy patterns go into sets of at most HEAVY_GROUP_SIZE, ordinary ones share the big sets, and what each finds is the same", () => {
    const ordinary = Array.from({ length: 400 }, (_, i) => read(`forbidden_${i}(`));
    const heavy = Array.from({ length: 50 }, (_, i) => read(`/(a|b|c|d)*a(a|b|c|d){150}x${i}/`));
    const core = scanCore([...heavy, ...ordinary]);
    const sizes = core.groups.map((group) => group.members.every((index) => index >= heavy.length));
    expect(sizes[0]).toBe(true);
    expect(
      core.groups
        .filter((group) => group.members.some((index) => index < heavy.length))
        .every((group) => group.size <= HEAVY_GROUP_SIZE),
    ).toBe(true);
    expect(core.groups.filter((group) => group.members.some((index) => index < heavy.length)).length).toBeGreaterThan(
      1,
    );
    const text = ["forbidden_7(x)", `${"abcd".repeat(100)}a${"b".repeat(150)}x3`];
    expect(patternScanner([...heavy, ...ordinary])(text, NO_DEADLINE).hits).toEqual([
      { pattern: heavy.length + 7, unit: 0 },
      { pattern: 3, unit: 1 },
    ]);
  });
});
