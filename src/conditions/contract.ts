/**
 * What a condition kind is: one way a rule's front matter says when it
 * applies. conditions/list.ts holds the kinds; parsing, selection, the
 * stored markers, the compose memo, the command line and the Rules panel
 * loop over that list and name no kind. Pure.
 *
 * A kind has one of two roles:
 * - `activates`: a trigger of a conditional rule (its files, its keywords,
 *   a file's content): the rule applies when one holds (`match: any`) or
 *   when all do (`match: all`);
 * - `narrows`: a scope (agents, models): the rule applies only while the
 *   session's fact is one it names, whatever else decides it; the user's
 *   `@name` and the model's read with the `rule` tool reach past it.
 */
import type { PatternListProblem } from "../pattern/pattern-list.js";

/** How a rule's triggers combine when it has more than one. */
export type MatchMode = "any" | "all";

/** A rule file's front matter as the common reader has it. */
export type FrontMatterData = Readonly<Record<string, unknown>>;

/** What was wrong with a kind's keys, as typed values: rule/condition-warnings.ts words them. */
export type ConditionProblem =
  /** The key's value is of the wrong type: the rule is skipped, never read without its condition. */
  | { code: "unreadable"; key: string }
  /** The key is there but names nothing: the rule is not narrowed. */
  | { code: "names-none"; key: string }
  /** One value, a glob, cannot be used and is left out; `lost`: it was the last, none is left (fail closed). */
  | { code: "value-unusable"; key: string; value: string; reason: string; lost?: true }
  /** A problem of one key's patterns (pattern/pattern-list.ts). */
  | { code: "pattern"; key: string; problem: PatternListProblem }
  /**
   * The key was given: if its kind has no value once the conditions are
   * taken (none of its patterns usable, or every trigger dropped when another
   * was lost under `match: all`), the condition is lost (fail closed) and
   * said so; else nothing is said.
   */
  | { code: "lost-if-none"; key: string };

/** A kind's value as the front matter gives it (undefined: the rule has none), and what was wrong. */
export interface ReadValue<Value> {
  value?: Value;
  problems: ConditionProblem[];
}

/** A rule as a kind's index sees it: its name, and each kind's value under the kind's name. */
export interface ConditionHolder {
  readonly name: string;
  readonly conditions: Readonly<Record<string, unknown>>;
}

interface KindBase<Name extends string, Value> {
  readonly kind: Name;
  /** The front matter keys it reads: its own first, then the names other tools give it (`paths`, `applyTo`). */
  readonly keys: readonly string[];
  /** What a key's value should be, as the warning about a wrong one says. */
  readonly expected: string;
  /** Read in another tool's rule file (Cursor…); false: only in the plugin's own folders (a warning elsewhere). */
  readonly inOtherTools: boolean;
  /** Users write its values bare where YAML misreads them (Cursor's `globs: *.ts`): quoted before YAML reads them. */
  readonly bareValues?: boolean;
  /** Its value from the front matter; a value the rule does not have is undefined, never empty. */
  read(data: FrontMatterData): ReadValue<Value>;
  /** Whether a value read back from the parse cache (JSON) is one `read` gives. */
  isValue(value: unknown): boolean;
  /** Its entries in `list --json` (also for a rule without it, when `list` always shows them). */
  json(value: Value | undefined): Readonly<Record<string, unknown>>;
}

/** What a marker stores of a trigger that held: tagged by `kind`. */
export interface StoredMet {
  readonly kind: string;
}

export interface ActivatingKind<Name extends string, Value, Met extends StoredMet, Session>
  extends KindBase<Name, Value> {
  readonly role: "activates";
  /** The `kind` of what it stores when met (`file`): stored markers hold it, so it never changes. */
  readonly metKind: Met["kind"];
  /** What of the session meets the rule's value (`rule`: its name), or undefined. */
  met(value: Value, rule: string, session: Session): Met | undefined;
  /**
   * Adds to `into` the places in `rules` of the rules it may hold for in
   * `session` (a superset, repeats allowed; the others cannot meet it):
   * selection looks at no other conditional rule. `placesOf` finds a rule's
   * places by name.
   */
  candidates(
    rules: readonly ConditionHolder[],
    session: Session,
    placesOf: (name: string) => readonly number[],
    into: number[],
  ): void;
  /**
   * Its part of the compose memo's key: what of the session, while equal,
   * cannot make it hold for one more rule. Absent: it reads only what comes
   * with a prompt, which always composes.
   */
  memo?(session: Session): unknown;
  /** Whether a stored met value of its `metKind` (a marker of any earlier version) has its shape. */
  isStoredMet(met: Readonly<Record<string, unknown>>): boolean;
  readonly words: ActivatingWords<Value, Met>;
}

interface ActivatingWords<Value, Met> {
  /** The condition as `list` shows it: `files: src/**`. */
  label(value: Value): string;
  /** Why it does not hold, for `explain`: `files: no file matched src/**`. */
  missing(value: Value): string;
  /** What met it, for the log and the session report: `file src/a.ts matched src/**`. */
  met(met: Met): string;
  /** What met it, as `explain` names the condition: `files: src/a.ts matched src/**`. */
  explain(met: Met): string;
  /** What met it in the Rules panel, each part of the repository's text through `shown`. */
  panel(met: Met, shown: (text: string) => string): string;
  /** A warning's words for it once it alone is left of the triggers (`its keywords`); else `its other conditions`. */
  alone?: string;
  /** For a kind read as patterns: what its patterns are called (`content`), and what nothing activates without them. */
  patterns?: { noun: string; nothing: string };
}

export interface NarrowingKind<Name extends string, Fact extends string, FactValue>
  extends KindBase<Name, readonly string[]> {
  readonly role: "narrows";
  /** The session fact it reads (`agent`): its key in SessionFacts, and in a stored marker's scope. */
  readonly fact: Fact;
  /**
   * What of the rule's names the session's fact matches (the agent, the model
   * pattern), or undefined: not for this session. A fact not known yet
   * matches nothing: a rule for `plan` never reaches a session that may not be planning.
   */
  holds(names: readonly string[], fact: FactValue | undefined): string | undefined;
  /**
   * For a kind whose names are facts: the fact a new session has when the
   * user picks none (OpenCode's default agent). `check` sizes a new
   * session's message for it and for each name the rules give.
   */
  readonly startsAs?: string;
  /** The list of existing values `check` compares the names with (cli/check-conditions.ts); absent: not checked. */
  readonly knownBy?: "opencode-agents";
  /** The command line's option that gives the fact (`explain --agent plan`). */
  readonly option: FactOption<FactValue>;
  /**
   * Reads the fact from the project itself, for a fact no host gives (the
   * repository's branch): absent when the host gives it with its events (the
   * agent, the model). I/O only through `read`, which is bounded.
   */
  observe?(read: SmallFileReader, root: string): Promise<FactValue | undefined>;
  readonly words: NarrowingWords<FactValue>;
}

/** A fact's option on the command line. */
interface FactOption<FactValue> {
  /** Its long flag (`--agent`), and how the help names its value (`<name>`). */
  readonly flag: string;
  readonly value: string;
  /** A short flag, when it has one (`-m`). */
  readonly short?: string;
  readonly help: string;
  /** The option's text as the fact, or the usage error's words when it cannot be one. */
  parse(text: string): { fact: FactValue } | { problem: string };
}

/** A small regular file's text (a FIFO, a folder or a large file reads as undefined): the one I/O a kind may do. */
export type SmallFileReader = (path: string) => Promise<string | undefined>;

interface NarrowingWords<FactValue> {
  /** One and several: `agent`, `agents`. */
  noun: string;
  nouns: string;
  /** The fact as people write it (`plan`, `anthropic/claude-sonnet-4`); also its part of the compose memo's key. */
  written(fact: FactValue): string;
  /** The session's fact when the rule is not for it: `the session works as agent build`, `… not known yet`. */
  now(fact: FactValue | undefined): string;
  /** What the session works as, in a switch notice: `agent build`, `model openai/gpt-5`; undefined: not said. */
  workingAs(fact: FactValue | undefined): string | undefined;
  /** Said in every switch notice and in the panel's compact layout: what a user switches (the agent). */
  primary?: true;
}

/** A kind's own value in a rule's conditions (the one place the record is read by a kind's name). */
export const valueIn = <Value>(holder: ConditionHolder, kind: string): Value | undefined =>
  holder.conditions[kind] as Value | undefined;
