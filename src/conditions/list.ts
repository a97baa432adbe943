/**
 * The condition kinds, in the order rules are read, reasons are given and
 * conditions are shown: triggers first (files, keywords, content), then
 * scopes (agents, models). A new kind is one file of conditions/ and one
 * line here; the types below follow from the list.
 */
import { agents } from "./agents.js";
import { branches } from "./branches.js";
import { content } from "./content.js";
import type { ActivatingKind, FrontMatterData, NarrowingKind, ReadValue, StoredMet } from "./contract.js";
import { files } from "./files.js";
import { keywords } from "./keywords.js";
import { models } from "./models.js";

export const CONDITIONS = [files, keywords, content, agents, models, branches] as const;

type Kind = (typeof CONDITIONS)[number];
type Activating = Extract<Kind, { role: "activates" }>;
type Narrowing = Extract<Kind, { role: "narrows" }>;

type ValueOf<K> = K extends { read(data: FrontMatterData): ReadValue<infer V> } ? V : never;
type MetOf<K> = K extends { met(value: never, rule: string, session: never): infer M } ? Exclude<M, undefined> : never;
type SessionOf<K> = K extends { met(value: never, rule: string, session: infer S): unknown } ? S : never;
type FactOf<K> = K extends { holds(names: never, fact: infer F): unknown } ? Exclude<F, undefined> : never;
type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** A rule's conditions: each kind's value under its name, absent when the rule has none of it. */
export type RuleConditions = { readonly [K in Kind as K["kind"]]?: ValueOf<K> };

/** A front matter key some kind reads. */
export type ConditionKey = Kind["keys"][number];

/** What of the session the triggers read: each activating kind's part (its files, its prompt, its records). */
export type TriggerSession = Intersection<SessionOf<Activating>>;

/** What a trigger that held stores (`{kind: "file", file, glob}`, …): the `met` of an activation reason. */
export type ConditionMet = MetOf<Activating>;

/** The facts of a session the scopes read (its agent, its model); each may not be known yet. */
export type SessionFacts = { [K in Narrowing as K["fact"]]?: FactOf<K> };

/** What of a rule's scope the session's facts met, by fact (`{agent: "plan", model: "anthropic/*"}`). */
export type ScopeMatch = { [K in Narrowing as K["fact"]]?: string };

/** A kind of either role, its types erased, for the code that loops over the list. */
export type AnyActivating = ActivatingKind<string, unknown, StoredMet, unknown>;
export type AnyNarrowing = NarrowingKind<string, string, unknown>;
export type AnyKind = AnyActivating | AnyNarrowing;

/** The list, its kinds' types erased. */
export const KINDS: readonly AnyKind[] = CONDITIONS;
export const ACTIVATING: readonly AnyActivating[] = KINDS.filter((kind) => kind.role === "activates");
export const NARROWING: readonly AnyNarrowing[] = KINDS.filter((kind) => kind.role === "narrows");

/** The kind that reads front matter key `key`. */
export const kindOfKey = (key: string): AnyKind | undefined => KINDS.find((kind) => kind.keys.includes(key));

/** The kind named `name`. */
export const kindNamed = (name: string): AnyKind | undefined => KINDS.find((kind) => kind.kind === name);

/** The activating kind whose stored met values are tagged `metKind` (`file`). */
export const kindOfMet = (metKind: string): AnyActivating | undefined =>
  ACTIVATING.find((kind) => kind.metKind === metKind);

/** Whether the rule has a value of one of `kinds` (a plain loop: selection asks it of every rule it looks at). */
export function hasSome(rule: { readonly conditions: RuleConditions }, kinds: readonly AnyKind[]): boolean {
  for (const kind of kinds) if (conditionOf(rule, kind) !== undefined) return true;
  return false;
}

/** A rule's value of `kind`, or undefined (an empty list is none: a kind's value never is). */
export function conditionOf(rule: { readonly conditions: RuleConditions }, kind: AnyKind): unknown {
  const value = (rule.conditions as Readonly<Record<string, unknown>>)[kind.kind];
  return Array.isArray(value) && value.length === 0 ? undefined : value;
}

/** The session's fact that `kind` reads, or undefined. */
export const factOf = (facts: SessionFacts | undefined, kind: AnyNarrowing): unknown =>
  (facts as Readonly<Record<string, unknown>> | undefined)?.[kind.fact];

/** The facts a value holds as its own fields, as a session's state holds its `agent` and `model`. */
export function factsIn(holder: object): SessionFacts {
  const facts: Record<string, unknown> = {};
  for (const kind of NARROWING) facts[kind.fact] = (holder as Readonly<Record<string, unknown>>)[kind.fact];
  return facts as SessionFacts;
}
