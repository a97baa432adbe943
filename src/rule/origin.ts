/**
 * Where a rule comes from, in the words `list`, `explain`, `check` and the
 * Rules panel use (docs/team-packs.md): its tier, and its pack.
 */
import type { Rule } from "./rule.js";
import { trustOf } from "./trust.js";

/** A rule's tier as people name it: the organisation's (`managed`), the user's, or the project's. */
type Tier = "managed" | "user" | "project";

export const tierOf = (rule: Pick<Rule, "scope" | "trust">): Tier => {
  const trust = trustOf(rule);
  return trust === "repository" ? "project" : trust;
};

/** `managed`, `pack @acme/rules@2.1.0`, `managed pack github:acme/policy@3f2c1ab`; undefined for a rule of an ordinary rules folder. */
export function originText(rule: Pick<Rule, "scope" | "trust" | "pack">): string | undefined {
  const managed = tierOf(rule) === "managed";
  if (rule.pack) return `${managed ? "managed " : ""}pack ${rule.pack.label}`;
  return managed ? "managed" : undefined;
}
