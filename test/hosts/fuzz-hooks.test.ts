/**
 * Fuzz: random rule sets and random hook sequences, with a client that fails,
 * throws, hangs (honouring its abort signal, or deaf to it), answers late, or
 * stores a prompt and then times out. A small
 * simulated OpenCode keeps each session's history as the model would see it
 * (the plugin's own prompts go through `chat.message` first, as in OpenCode;
 * compaction starts a new window). Then the client heals, every live session
 * gets one more user message, and:
 * - nothing hung: every hook OpenCode awaits settled (a deadline 40× the
 *   configured bounds names the one that did not);
 * - nothing lost: every always-on rule is in each live session's window;
 * - nothing duplicated: no rule is twice in a window, unless the plugin said
 *   it delivered without being able to read the history that would tell.
 */
import fc from "fast-check";
import { describe, test } from "vitest";
import { FILES, type Op, runScenario } from "./fuzz-hooks-scenario.js";

const ruleSet = fc.record({
  always: fc.integer({ min: 1, max: 4 }),
  keyword: fc.boolean(),
  glob: fc.boolean(),
  broken: fc.subarray(["bad-yaml", "empty-glob", "backtracking", "delimiter"] as const),
});

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: "create" as const }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("user" as const), session: fc.nat(5), keyword: fc.boolean() }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("tool" as const),
      session: fc.nat(5),
      file: fc.nat(FILES.length - 1),
      undefinedOutput: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("compact" as const), session: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), session: fc.nat(5) }) },
);

describe("fuzz: random hook sequences with a misbehaving client", () => {
  test("nothing is lost, duplicated or hung", async () => {
    await fc.assert(
      fc.asyncProperty(
        ruleSet,
        fc.array(op, { minLength: 3, maxLength: 25 }),
        fc.integer(),
        async (rules, ops, seed) => {
          await runScenario(rules, ops, seed);
        },
      ),
      {
        numRuns: Number(process.env.FUZZ_RUNS ?? 100),
        // Found by this fuzz: two compactions whose events come late and whose history reads fail; each event is one of them.
        examples: [
          [
            { always: 1, keyword: false, glob: false, broken: [] },
            [
              { kind: "create" },
              { kind: "compact", session: 0 },
              { kind: "compact", session: 0 },
              { kind: "user", session: 0, keyword: false },
            ],
            -6,
          ],
          // Found by this fuzz: a new session's rules prompt, slow, is stored after its session's compaction began, and that compaction's history read fails.
          [
            { always: 1, keyword: false, glob: false, broken: [] },
            [
              { kind: "create" },
              { kind: "user", session: 0, keyword: false },
              { kind: "create" },
              { kind: "create" },
              { kind: "create" },
              { kind: "compact", session: 1 },
              { kind: "compact", session: 2 },
            ],
            1777697807,
          ],
        ],
      },
    );
  }, 240_000);
});
