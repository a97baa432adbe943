/**
 * How the session checks a tool call against the rules that forbid: which
 * rules hold under the user's option, which of the call's changes are
 * checked, and which files must be read for it. Rule files are left out of
 * the check, as `verify` leaves them: a rule that forbids `console.log(`
 * must not stop the model writing that rule, or another like it. What a call
 * does to them is read apart, the text before and after, so the user can be
 * told when a rule that forbids is weakened. Pure.
 */
import {
  checkedChange,
  checkedSource,
  type RuleFileWrite,
  ruleFileWrite,
  ruleSource,
  type UncheckedChange,
} from "../enforce/checked-changes.js";
import type { CheckedChange, Forbidding } from "../enforce/violations.js";
import type { Rule } from "../rule/rule.js";
import { trustOf } from "../rule/trust.js";
import type { CallUnderCheck, CheckRead } from "./events.js";
import type { RuleSet } from "./session.js";

/** The managed rules of a rule set, kept per rule set (whose patterns are compiled once). */
const managedOnly = new WeakMap<readonly Rule[], Forbidding>();

/**
 * The rules whose forbids are checked: with the option `off` only managed rules, which no setting of the user's
 * switches off.
 */
export function forbiddingUnder(rules: RuleSet): Forbidding {
  const forbidding = rules.forbidding ?? { rules: rules.list };
  if (rules.enforce !== "off") return forbidding;
  const known = managedOnly.get(forbidding.rules);
  if (known) return known;
  const only = { ...forbidding, rules: forbidding.rules.filter((rule) => trustOf(rule) === "managed") };
  managedOnly.set(forbidding.rules, only);
  return only;
}

/**
 * The files the check reads, in order: the checked files first, then rule files, so that a slow one cannot use up the
 * time the checked files need.
 */
export function readsFor(check: Pick<CallUnderCheck, "call" | "ruleFiles">): Array<{ change: number; path: string }> {
  const checked: Array<{ change: number; path: string }> = [];
  const ofRuleFiles: Array<{ change: number; path: string }> = [];
  for (const [index, change] of check.call.changes.entries()) {
    if (change.kind === "command") continue;
    const ruleFile = check.ruleFiles[index];
    const path = ruleFile === undefined ? checkedSource(change) : ruleSource(change, ruleFile);
    if (path !== undefined) (ruleFile === undefined ? checked : ofRuleFiles).push({ change: index, path });
  }
  return [...checked, ...ofRuleFiles];
}

interface CheckedCall {
  /** What the rules are checked against, in the call's order; rule files left out. */
  readonly changes: CheckedChange[];
  readonly ruleWrites: RuleFileWrite[];
  /** Changes whose file could not be read. */
  readonly unchecked: UncheckedChange[];
}

/** The call's changes as the check reads them, from the files read for it (`readsFor`). */
export function checkedCall(
  check: Pick<CallUnderCheck, "call" | "ruleFiles">,
  read: readonly CheckRead[],
): CheckedCall {
  const disk = new Map(read.map(({ change, disk }) => [change, disk]));
  const result: CheckedCall = { changes: [], ruleWrites: [], unchecked: [] };
  for (const [index, change] of check.call.changes.entries()) {
    const ruleFile = check.ruleFiles[index];
    if (change.kind === "command") result.changes.push(change);
    else if (ruleFile !== undefined) result.ruleWrites.push(ruleFileWrite(change, ruleFile, disk.get(index)));
    else {
      const { checked, unchecked } = checkedChange(change, disk.get(index));
      if (unchecked) result.unchecked.push(unchecked);
      if (checked) result.changes.push(checked);
    }
  }
  return result;
}
