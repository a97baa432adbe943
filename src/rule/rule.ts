/**
 * What a rule is, once its file has been read: one shape for every source.
 * Parsing produces it, selection and rendering only read it.
 */

import type { MatchMode } from "../conditions/contract.js";
import type { RuleConditions } from "../conditions/list.js";
import type { ForbidPattern } from "../pattern/forbid-pattern.js";
import type { Trust } from "./trust.js";

/** Where a rule was found: the user's global folder or the project (any level of it). */
export type RuleScope = "global" | "project";

export interface Rule {
  /** Path in its rules folder without extension, POSIX separators: `style`, `sub/name`. */
  name: string;
  scope: RuleScope;
  /** Whose file it is: the repository's or the user's (absent: by scope, `trustOf`). */
  trust?: Trust;
  /** The pack it came from (docs/team-packs.md); absent for a rule of a rules folder. */
  pack?: RulePack;
  /** The format it was read from (`native` for `.opencode/rules`). */
  source: string;
  /** Absolute path of the rule file. */
  path: string;
  /** Short path for people and the model: `~/…` for the home folder, project-relative for the project. */
  displayPath: string;
  /** The body: front matter removed, line endings normalised, trimmed. */
  content: string;
  description?: string;
  /**
   * When it applies, by condition kind (conditions/list.ts): triggers (its
   * files' globs, keywords, content patterns) and scopes (agents, models);
   * a kind the rule does not have is absent.
   */
  conditions: RuleConditions;
  /** A rule with a condition that is also listed on request by its description while the condition has not held (Continue's `alwaysApply: false`). */
  requestable?: boolean;
  /** `true` or `false` when the front matter says so; undefined when it is silent. */
  alwaysApply?: boolean;
  /** With more than one trigger (globs, keywords, file content): does one suffice (`any`, the default) or must all hold? */
  match: MatchMode;
  /** 1–100, default 50: higher comes first in a message and is left out last when a budget is exceeded. */
  priority: number;
  /** A rule with the same name found earlier is replaced by this one instead of shadowing it. */
  override: boolean;
  /** Front matter keys this version does not interpret, kept for reports. */
  unknownKeys: string[];
  /** Another tool's own name for the rule's type, as that tool would give it (Cursor "Agent Requested", Kiro "fileMatch"); `list` shows it. */
  toolType?: string;
  /** What the rule forbids, and what a call that breaks it meets; present only with at least one usable pattern. */
  enforce?: RuleEnforcement;
}

/** A pack as its rules name it: the spec configured, and the version or commit it is pinned at. */
export interface RulePack {
  spec: string;
  /** As people read it: `@acme/opencode-rules@2.1.0`, `github:acme/rules@3f2c1ab`. */
  label: string;
  version?: string;
  commit?: string;
}

/** `block`: the call is refused before it runs; `warn`: it runs, and its result carries the rule. */
export type EnforceMode = "block" | "warn";

export interface RuleEnforcement {
  mode: EnforceMode;
  /** Text that must never be added to a file the rule applies to (its globs; without globs, every file). */
  forbid: readonly ForbidPattern[];
  /** Shell commands that must never run, whatever the files. */
  forbidCommands: readonly ForbidPattern[];
}

export const DEFAULT_PRIORITY = 50;

/** A rule file that changed in a way the model would notice: a session holding the old version gets the new one. */
export function differs(before: Rule, after: Rule): boolean {
  return before.content !== after.content || before.path !== after.path || before.description !== after.description;
}

/** A problem with a rule file or folder: a typed value; its text is made where a person reads it (src/rule/warnings.ts). */
