/**
 * Real rule files from public repositories (the steering's corpus,
 * ../shared/corpus/real-world beside the project: other repositories' files
 * stay out of this one's tree; each project with its source and licence in
 * SOURCE.md), each with the activation
 * its own tool gives it, from that tool's documentation (expected.json). The
 * plugin loads each project as OpenCode would open it and must agree on every
 * file: the same mode, the files it attaches for, and the tool's type name;
 * where the table names agents or prompts, a session's first turn with them
 * (through the session model, test/support/corpus-session.ts) brings the
 * rule or does not.
 */
import { cp, mkdir, readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Rule } from "../../src/rule/rule.js";
import { matchingGlob } from "../../src/glob/rule-glob.js";
import { contentHits } from "../../src/select/content.js";
import { activationOf } from "../../src/select/rule-set.js";
import { DEFAULT_MAX_RULE_BYTES } from "../../src/discover/discover.js";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { type LoadedRules, loadRules, sourcesRead } from "../../src/formats/load.js";
import { sourceLookUps } from "../../src/formats/looked-up.js";
import { rulesTurnBrings } from "../support/corpus-session.js";
import { tempFolder } from "../support/temp-folder.js";

const CORPUS =
  process.env.RULEBOOK_REAL_WORLD_CORPUS ??
  join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "shared", "corpus", "real-world");

interface Expected {
  project: string;
  file: string;
  tool: string;
  toolType: string;
  activation: "always" | "files" | "keywords" | "on-request" | "manual";
  matches?: string[];
  notMatches?: string[];
  /** For a rule that applies by a file's content (Continue's `regex`): text that activates it, and text that does not. */
  contains?: string[];
  notContains?: string[];
  /** OpenCode agents that must / must not get the rule (a Kilo Code or Roo Code mode folder's). */
  agentsIn?: string[];
  agentsOut?: string[];
  /** User prompts that must / must not bring the rule (an OpenHands knowledge microagent's `triggers`). */
  prompts?: string[];
  notPrompts?: string[];
  why: string;
}

const table = JSON.parse(await readCorpusTable()) as Expected[];

/** The corpus lives outside this repository: where it is missing, the failure says where it was looked for. */
async function readCorpusTable(): Promise<string> {
  try {
    return await readFile(join(CORPUS, "expected.json"), "utf8");
  } catch (error) {
    throw new Error(
      `The real-world rule corpus is not at ${CORPUS} (${error instanceof Error ? error.message : String(error)}). ` +
        "Other repositories' rule files stay out of this one: check out the steering's shared/ beside the project (../shared/corpus/real-world), or set RULEBOOK_REAL_WORLD_CORPUS to its folder.",
    );
  }
}
const MODES = { always: "always", conditional: "files", "on-request": "on-request", manual: "manual" } as const;

let scratch: string;
let home: string;
const loaded = new Map<string, LoadedRules>();

beforeAll(async () => {
  scratch = await tempFolder("rulebook-real-world-");
  home = join(scratch, "home");
  await mkdir(home);
  for (const project of new Set(table.map((entry) => entry.project))) {
    // A copy: the project is its own repository root, as when a user opens it.
    const root = join(scratch, project);
    await cp(join(CORPUS, project), root, { recursive: true });
    // One format at a time: a repository keeping one rule for several tools has it shadowed by name across them.
    for (const tool of new Set(table.filter((entry) => entry.project === project).map((entry) => entry.tool))) {
      const context = {
        env: {},
        home,
        directory: root,
        worktree: root,
        fs: nodeRuleFs,
        maxRuleBytes: DEFAULT_MAX_RULE_BYTES,
      };
      // The files a session touches bring the rule files found by looking up from them (a sub-folder's GEMINI.md).
      const lookUps = sourceLookUps(context, sourcesRead({ sources: [tool] }));
      const touched = table.filter((entry) => entry.project === project && entry.tool === tool);
      await lookUps.from(touched.flatMap((entry) => (entry.matches ?? []).map((path) => join(root, path))));
      loaded.set(`${project}:${tool}`, await loadRules({ ...context, lookedUp: lookUps.folders }, { sources: [tool] }));
    }
  }
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

function ruleOf(entry: Expected): Rule | undefined {
  return loaded.get(`${entry.project}:${entry.tool}`)?.rules.find((rule) => rule.displayPath === entry.file);
}

/** What the plugin does with the file, in the table's words: a rule that applies by the prompt's words alone is `keywords`. */
function activationHere(rule: Rule | undefined) {
  if (!rule) return { loaded: false };
  const { files, keywords, content } = rule.conditions;
  const byWords = keywords !== undefined && files === undefined && content === undefined;
  return {
    loaded: true,
    activation: byWords && activationOf(rule) === "conditional" ? "keywords" : MODES[activationOf(rule)],
    toolType: rule.toolType,
  };
}

/** Whether a file of `text` activates the rule by its content. */
const activatedBy = (rule: Rule, text: string) =>
  contentHits([rule], [{ file: "any", text }], new Set(), { now: () => 0, deadline: 1 }).hits.length > 0;

/** The table's fields a session's turn checks, and whether the turn they describe brings the rule. */
const TURN_FIELDS = [
  ["agentsIn", true],
  ["agentsOut", false],
  ["prompts", true],
  ["notPrompts", false],
] as const;
type TurnField = (typeof TURN_FIELDS)[number][0];

/**
 * A turn as one value of `field` describes it. An agent's turn brings what else the entry says activates the rule (its
 * first prompt, its first matching file); a prompt's turn brings no file, which could bring the rule by itself.
 */
function turnFor(entry: Expected, field: TurnField, value: string) {
  if (field === "agentsIn" || field === "agentsOut")
    return { agent: value, prompt: entry.prompts?.[0] ?? "Hello.", files: entry.matches?.slice(0, 1) ?? [] };
  // OpenCode's default agent, unless the rule is for others only.
  return { agent: entry.agentsIn?.[0] ?? "build", prompt: value, files: [] };
}

/** Per field, per format: how many entries, and how many of their values, a turn checked. */
const turnsChecked = new Map<string, { entries: number; values: number }>();

async function checkTurns(entry: Expected, rule: Rule): Promise<void> {
  for (const [field, brings] of TURN_FIELDS) {
    const values = entry[field] ?? [];
    if (values.length === 0) continue;
    for (const value of values) {
      const turn = turnFor(entry, field, value);
      const brought = await rulesTurnBrings(loaded.get(`${entry.project}:${entry.tool}`) as LoadedRules, {
        root: join(scratch, entry.project),
        home,
        ...turn,
      });
      expect(
        brought.has(rule.name),
        `${entry.project} ${entry.file} ${field} ${JSON.stringify(value)}: a turn as agent ${turn.agent} with the prompt ` +
          `${JSON.stringify(turn.prompt)}${turn.files.length > 0 ? ` and ${turn.files.join(", ")}` : ""} should ` +
          `${brings ? "" : "not "}bring rule ${rule.name}; it brought ${[...brought].join(", ") || "none"}`,
      ).toBe(brings);
    }
    const key = `${field} ${entry.tool}`;
    const counted = turnsChecked.get(key) ?? { entries: 0, values: 0 };
    turnsChecked.set(key, { entries: counted.entries + 1, values: counted.values + values.length });
  }
}

describe.each([...new Set(table.map((entry) => entry.tool))])("%s", (tool) => {
  test.each(
    table.filter((entry) => entry.tool === tool).map((entry) => [`${entry.project}/${entry.file}`, entry] as const),
  )("%s", async (_, entry) => {
    const rule = ruleOf(entry);
    expect(activationHere(rule), entry.why).toEqual({
      loaded: true,
      activation: entry.activation,
      toolType: entry.toolType,
    });
    const globs = rule?.conditions.files ?? [];
    for (const file of entry.matches ?? [])
      expect(matchingGlob(file, globs), `${file} should attach the rule (globs ${globs.join(", ")})`).toBeDefined();
    for (const file of entry.notMatches ?? [])
      expect(matchingGlob(file, globs), `${file} should not attach the rule`).toBeUndefined();
    for (const text of entry.contains ?? [])
      expect(rule && activatedBy(rule, text), `a file holding ${JSON.stringify(text)} should attach the rule`).toBe(
        true,
      );
    for (const text of entry.notContains ?? [])
      expect(rule && activatedBy(rule, text), `a file holding ${JSON.stringify(text)} should not attach the rule`).toBe(
        false,
      );
    if (rule) await checkTurns(entry, rule);
  });
});

test.each(TURN_FIELDS.map(([field]) => field))(
  "every entry with %s was checked through a session's turn, and some entry has it",
  (field) => {
    const listed = table.filter((entry) => (entry[field] ?? []).length > 0);
    const checked = [...turnsChecked].filter(([key]) => key.startsWith(`${field} `));
    expect(listed.length, `entries of ${CORPUS}/expected.json with ${field}`).toBeGreaterThan(0);
    expect(
      checked.reduce((sum, [, { entries }]) => sum + entries, 0),
      `entries with ${field} checked`,
    ).toBe(listed.length);
    expect(
      checked.reduce((sum, [, { values }]) => sum + values, 0),
      `values of ${field} checked`,
    ).toBe(listed.reduce((sum, entry) => sum + (entry[field]?.length ?? 0), 0));
  },
);

test("every rule the plugin finds in the corpus is in the table: none is live that its tool would not read", () => {
  const listed = new Set(table.map((entry) => `${entry.project}:${entry.tool}/${entry.file}`));
  const found = [...loaded].flatMap(([key, result]) => result.rules.map((rule) => `${key}/${rule.displayPath}`));
  expect(found.filter((key) => !listed.has(key))).toEqual([]);
});
