/**
 * Which rules apply to a session: what its context holds. Survives
 * compaction. Pure: every change gives a new value, sharing what it left as
 * it was (a set grows only by copy when it changes).
 */
import type { ContentMatch } from "../conditions/content.js";
import { matchNewFiles, type FileMatch } from "../conditions/files.js";
import type { Rule } from "../rule/rule.js";
import type { ContentHit } from "../select/content.js";
import type { ActivationReason } from "../select/reasons.js";

export interface Activation {
  /** Files in the session's context. */
  readonly files: ReadonlySet<string>;
  /** Files not yet matched against the rules' globs, in the order they arrived: an event's cost does not grow with the working set. */
  readonly unmatched: readonly string[];
  /** Glob rules a file of the session matched, with the reason. */
  readonly fileMatches: ReadonlyMap<string, FileMatch>;
  /** Rules a file's text (as a tool brought it in) activated by content, with the first file and pattern. */
  readonly contentMatches: ReadonlyMap<string, ContentMatch>;
  /** Rules mentioned as `@name` in the session. */
  readonly mentioned: ReadonlySet<string>;
  /** Rules activated by a condition, with the first reason: they stay active after compaction. */
  readonly activated: ReadonlyMap<string, ActivationReason>;
}

export const NO_ACTIVATION: Activation = {
  files: new Set(),
  unmatched: [],
  fileMatches: new Map(),
  contentMatches: new Map(),
  mentioned: new Set(),
  activated: new Map(),
};

/** Adds files to the session's context; files it has are left out. */
export function withFiles(activation: Activation, paths: readonly string[]): Activation {
  const fresh = [...new Set(paths)].filter((path) => !activation.files.has(path));
  if (fresh.length === 0) return activation;
  return {
    ...activation,
    files: new Set([...activation.files, ...fresh]),
    unmatched: [...activation.unmatched, ...fresh],
  };
}

/** Records the rules a file's text activated, keeping the first match of each. */
export function withContent(activation: Activation, hits: readonly ContentHit[]): Activation {
  const fresh = hits.filter(({ rule }) => !activation.contentMatches.has(rule));
  if (fresh.length === 0) return activation;
  const contentMatches = new Map(activation.contentMatches);
  for (const { rule, match } of fresh) contentMatches.set(rule, match);
  return { ...activation, contentMatches };
}

export function withMentions(activation: Activation, names: readonly string[]): Activation {
  const fresh = names.filter((name) => !activation.mentioned.has(name));
  return fresh.length === 0 ? activation : { ...activation, mentioned: new Set([...activation.mentioned, ...fresh]) };
}

/** Records why rules became active, keeping the first reason of each. */
export function withActivated(
  activation: Activation,
  found: ReadonlyArray<{ name: string; reason: ActivationReason }>,
): Activation {
  const fresh = found.filter(({ name }) => !activation.activated.has(name));
  if (fresh.length === 0) return activation;
  const activated = new Map(activation.activated);
  for (const { name, reason } of fresh) activated.set(name, reason);
  return { ...activation, activated };
}

/** Matches the files new since the last look against the rules' globs. */
export function matched(activation: Activation, rules: readonly Rule[]): Activation {
  if (activation.unmatched.length === 0) return activation;
  const fileMatches = new Map(activation.fileMatches);
  matchNewFiles(rules, activation.unmatched, fileMatches);
  return { ...activation, fileMatches, unmatched: [] };
}

/** The rule files were reloaded: globs may have changed, so the whole working set is matched again, once; deleted rules are no longer active. */
export function reloaded(activation: Activation, removed: readonly string[]): Activation {
  const activated = new Map(activation.activated);
  const contentMatches = new Map(activation.contentMatches);
  for (const name of removed) {
    activated.delete(name);
    contentMatches.delete(name);
  }
  // A content match whose rule's patterns changed no longer counts (select/active.ts checks its pattern); the text is not kept to scan again.
  return { ...activation, fileMatches: new Map(), unmatched: [...activation.files], activated, contentMatches };
}
