/** The catalogue of warning codes that warnings.ts makes warnings from and words. */
import type { FrontMatterProblem } from "./front-matter.js";
import type { ConditionKey } from "../conditions/list.js";
import type { NowApplies } from "../conditions/lost.js";
import type { CheckedKey, DefaultedKey, EnforcementKey, ForbidKey } from "./keys.js";
import type { PackOwner, PackProblem } from "./pack-problems.js";
import type { ReferenceReach } from "./trust.js";

/** A front matter value as a warning names it: its kind, or a scalar's type and JSON (cut short). */
export type FoundValue = "nothing" | "list" | "date" | "mapping" | { type: string; json: string };

/** An error means something was not loaded; a warning, that a default was used instead, or nothing was lost. */
export type Severity = "error" | "warning";

/** A warning of code `C`, as its text reads it. */
export type WarningOfCode<C extends keyof Details> = {
  code: C;
  line?: number;
  severity: Severity;
  path: string;
} & Details[C];

/** A key whose value is patterns: what a rule forbids, or a condition kind's (`fileContains`). */
type PatternKey = ForbidKey | ConditionKey;

type Empty = Record<never, never>;
export type Skips = { rule: string };
type Reference = { reference: string };

/** Every code, with the details its text needs. */
export interface Details {
  // A rules folder, or something in one.
  "folder-unreadable": { reason: string };
  "folder-unresolvable": { reason: string };
  "folder-not-a-folder": Empty;
  "subfolder-unreadable": { reason: string };
  "symlink-loop": { realPath: string };
  "folder-already-read": { realPath: string };
  "folder-too-deep": { maxDepth: number };
  "walk-limit": { limit: number; what: "folders" | "entries" | "files" };
  "too-many-warnings": { limit: number };
  "nested-search-limit": { maxFolders: number };
  "nested-folder-unreadable": { reason: string };
  "path-unreadable": { reason: string };
  "path-unresolvable": Empty;
  "not-regular-file": Empty;
  "outside-repository": { realPath: string; realRoot: string; what: "file" | "folder" };
  "extra-dir-outside-repository": Empty;
  // A rule file that was skipped.
  "rule-too-large": Skips & { limit: number; size?: number };
  "rule-unreadable": Skips & { reason: string };
  "not-text": Skips & { reason: string };
  "file-empty": Skips;
  "front-matter-language": Skips & { language: string };
  "front-matter-unclosed": Skips;
  "front-matter-stray-delimiter": Skips & { strayLine: number };
  "front-matter-too-deep": Skips;
  "yaml-invalid": Skips & { reason: string };
  "front-matter-not-mapping": Skips;
  "no-rule-text": Skips;
  "key-invalid": Skips & { key: CheckedKey; found: FoundValue };
  // A rule that loads, with something of it ignored.
  /** Another tool's rule whose closed front matter block cannot be read: its tool still reads the file, so it loads, applying only when mentioned. */
  "front-matter-unread": { problem: FrontMatterProblem["code"]; reason?: string };
  "key-ignored": { key: DefaultedKey; found: FoundValue };
  "glob-unusable": { glob: string; problem: string; nowApplies?: NowApplies };
  /** A key of patterns given (`fileContains`), none of them usable: `nowApplies` says what the rule applies by instead (undefined: always, as `alwaysApply: true` says). */
  "content-condition-lost": { key: ConditionKey; nowApplies?: NowApplies };
  "unknown-keys": { keys: string[] };
  /** A scope's key (`agents:`, `models:`) present but naming none: the rule is not narrowed. */
  "scope-empty": { key: ConditionKey };
  "activation-invalid": { key: string; allowed: string[]; value: string };
  "activation-incomplete": { key: string; value: string; lacks: "fileMatchPattern" | "globs" | "description" };
  /**
   * A key the originating tool does not read: ignored here too, so the rule applies as it does there.
   * `reads`: the key it reads instead; absent for a condition key only the plugin's own folders read.
   */
  "key-ignored-by-tool": { key: string; tool: string; reads?: string; alwaysOn: boolean };
  /** The key a tool applies a rule by is missing: the rule waits to be mentioned, as the tool applies nothing by itself. */
  "activation-missing": { key: string; tool: string; allowed: string[] };
  /** A name in `agents:` that no OpenCode agent has (built in, or defined in the user's or the project's config); `known` are the ones that exist. */
  "agent-unknown": { agent: string; known: string[] };
  // What a rule forbids (`forbid`, `forbidCommands`, `enforce`): a pattern that cannot be used is not loaded.
  /** The key's value is neither a pattern nor a list of patterns; or, with `item` (1-based), one item of its list is not text. */
  "forbid-invalid": { key: PatternKey; found: FoundValue; item?: number };
  /** `pattern` as written (cut short); `problem` says why, from its verb on ("uses a lookahead …"). */
  "forbid-pattern-unusable": { key: PatternKey; pattern: string; problem: string };
  "forbid-too-many": { key: PatternKey; count: number; limit: number };
  "enforce-invalid": { found: FoundValue };
  "enforce-without-forbid": Empty;
  /** Another tool's rule file: only this plugin's own folders may forbid, so the rule applies as it does in `tool`. */
  "enforcement-ignored-by-tool": { key: EnforcementKey; tool: string };
  "reference-too-deep": Reference & { maxDepth: number };
  "reference-outside": Reference & { target: string; trust: ReferenceReach };
  "reference-missing": Reference & { target: string; alsoTried?: string[] };
  "reference-unreadable": Reference & { reason: string };
  "reference-leads-outside": Reference & { realPath: string; trust: ReferenceReach };
  "reference-cycle": Reference & { chain: string[] };
  "reference-too-large": Reference & { maxBytes: number };
  "reference-too-many": Reference & { maxReferences: number };
  // Rules for a team: packs and the managed tier.
  "pack-not-delivered": { pack: string; problem: PackProblem; owner: PackOwner };
  "managed-not-trusted": { reason: string };
  "managed-beside": { managed: string };
  // OpenCode's config files.
  "config-invalid": { reason: string };
  "plugin-options": { problem: string };
  /** Options given to the Rules panel's entry in `tui.json`, which nothing reads. */
  "tui-options": { keys: string[] };
}
