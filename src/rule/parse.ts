/**
 * One rule file's bytes → a Rule, or warnings that say why it was skipped.
 * Pure: the file has already been read by a source.
 *
 * Fail closed: a rule whose conditions cannot be read is skipped, never
 * delivered as if it always applied.
 */
import type { MatchMode } from "../conditions/contract.js";
import { KINDS } from "../conditions/list.js";
import { readConditions } from "../conditions/read.js";
import { takeConditions, unreadableKey } from "./condition-warnings.js";
import { decodeRuleText } from "./decode.js";
import { readEnforcement } from "./enforcement.js";
import { type FrontMatter, splitFrontMatter } from "./front-matter.js";
import { ENFORCEMENT_KEYS, keyLine, type CheckedKey, type DefaultedKey } from "./keys.js";
import { DEFAULT_PRIORITY, type Rule, type RulePack, type RuleScope } from "./rule.js";
import type { Trust } from "./trust.js";
import { foundValue, ruleSkipped, ruleWarning, type FactsWithout, type RuleWarning } from "./warnings.js";

/** A rule file a source has found, before it is read. */
export interface RuleCandidate {
  name: string;
  scope: RuleScope;
  source: string;
  /** The tool the source reads files of, as warnings name it (RuleSource's `tool`). */
  tool?: string;
  path: string;
  displayPath: string;
  /** Whose file it is, when discovery knows (`extraDirs` the user named are the user's though in project scope). */
  trust?: Trust;
  /** The pack the file is in (docs/team-packs.md). */
  pack?: RulePack;
}

export interface ParsedRule {
  rule?: Rule;
  warnings: RuleWarning[];
}

/** A rule file's front matter as its format's mapper sees it. */
export interface FrontMatterView {
  data: Record<string, unknown>;
  /** The file has a front matter block, even an empty one (Cursor tells "no front matter" apart). */
  present: boolean;
  /** The rule's text after the front matter, untrimmed. */
  body: string;
  /** 1-based line of a top-level key, for warnings. */
  lineOf(key: string): number | undefined;
}

/**
 * Turns another tool's front matter into this plugin's keys (e.g. Kiro's
 * `inclusion: fileMatch` + `fileMatchPattern` → `globs`): the keys it
 * understood, mapped, the rest left for the common reader; and the tool's own
 * name for the rule's type, which `list` shows.
 */
export type FrontMatterMapper = (front: FrontMatterView) => { data: Record<string, unknown>; toolType?: string };

/**
 * How a format's tool reads front matter in a file: `strict` (this plugin's
 * own folders), a block that cannot be read skips the rule; `lenient`, the
 * tool still reads a file whose closed block does not parse, so the rule
 * loads with a warning, none of the block's keys read, applying only when
 * mentioned (never wider); `none`, the tool reads no front matter in this
 * file (`.cursorrules`): its whole text is the rule.
 */
export type FrontMatterReading = "strict" | "lenient" | "none";

/** Keys the common reader understands: the others are kept as unknown. */
const KNOWN_KEYS = new Set<string>([
  "description",
  "alwaysApply",
  "enabled",
  "match",
  "priority",
  "override",
  "requestable",
  ...ENFORCEMENT_KEYS,
  ...KINDS.flatMap((kind) => kind.keys),
]);

export function parseRule(
  candidate: RuleCandidate,
  bytes: Uint8Array,
  mapFrontMatter?: FrontMatterMapper,
  reading: FrontMatterReading = "strict",
): ParsedRule {
  const decoded = decodeRuleText(bytes);
  if (!decoded.ok) return skipped(candidate, { code: "not-text", reason: decoded.reason });
  if (decoded.text.trim() === "") return skipped(candidate, { code: "file-empty" });

  const front =
    reading === "none"
      ? { ok: true as const, data: {}, body: decoded.text, bodyLine: 1 }
      : splitFrontMatter(decoded.text);
  if (!front.ok) {
    if (reading === "lenient" && front.body !== undefined)
      return withUnreadFrontMatter(candidate, { ...front, body: front.body }, decoded.text);
    return skipped(candidate, { ...front.problem, line: front.line });
  }

  const content = front.body.trim();
  if (content === "") return skipped(candidate, { code: "no-rule-text", line: front.bodyLine });

  const text = decoded.text;
  if (!mapFrontMatter) return readKeys(candidate, content, front.data, text);
  const mapped = mapFrontMatter({
    data: front.data,
    present: front.bodyLine > 1,
    body: front.body,
    lineOf: (key) => keyLine(text, key),
  });
  const parsed = readKeys(candidate, content, mapped.data, text);
  if (parsed.rule && mapped.toolType !== undefined) parsed.rule.toolType = mapped.toolType;
  return parsed;
}

/** A rule its tool reads though its front matter cannot be: none of the block's keys is read, and it applies only when mentioned. */
function withUnreadFrontMatter(
  candidate: RuleCandidate,
  front: Extract<FrontMatter, { ok: false }> & { body: string },
  text: string,
): ParsedRule {
  const content = front.body.trim();
  if (content === "") return skipped(candidate, { code: "no-rule-text", line: front.bodyLine });
  const parsed = readKeys(candidate, content, { alwaysApply: false }, text);
  const reason = front.problem.code === "yaml-invalid" ? front.problem.reason : undefined;
  parsed.warnings.unshift(
    ruleWarning(candidate.path, { code: "front-matter-unread", problem: front.problem.code, reason, line: front.line }),
  );
  return parsed;
}

/** The rule is skipped, for this reason. */
function skipped(candidate: RuleCandidate, facts: FactsWithout<"rule">): ParsedRule {
  return { warnings: [ruleSkipped(candidate.path, candidate.name, facts)] };
}

/** The rule is skipped: this key's value is of the wrong type. */
function invalid(candidate: RuleCandidate, data: Record<string, unknown>, key: CheckedKey, text: string): ParsedRule {
  return skipped(candidate, { code: "key-invalid", key, found: foundValue(data[key]), line: keyLine(text, key) });
}

/** The rule loads without this key's value. */
function ignored(
  candidate: RuleCandidate,
  data: Record<string, unknown>,
  key: DefaultedKey,
  text: string,
): RuleWarning {
  return ruleWarning(candidate.path, {
    code: "key-ignored",
    key,
    found: foundValue(data[key]),
    line: keyLine(text, key),
  });
}

/** The rule from its front matter's keys (`text`, the whole file, gives warnings their lines). */
function readKeys(candidate: RuleCandidate, content: string, data: Record<string, unknown>, text: string): ParsedRule {
  const warnings: RuleWarning[] = [];

  const enabled = data.enabled;
  if (enabled !== undefined && typeof enabled !== "boolean") return invalid(candidate, data, "enabled", text);
  if (enabled === false) return { warnings };

  const alwaysApply = data.alwaysApply;
  if (alwaysApply !== undefined && typeof alwaysApply !== "boolean")
    return invalid(candidate, data, "alwaysApply", text);

  const read = readConditions(data, candidate.tool !== undefined);
  const unreadable = unreadableKey(read);
  if (unreadable !== undefined) return invalid(candidate, data, unreadable, text);

  let match: MatchMode = "any";
  if (data.match === "all" || data.match === "any") match = data.match;
  else if (data.match !== undefined) return invalid(candidate, data, "match", text);

  let priority = DEFAULT_PRIORITY;
  if (data.priority !== undefined) {
    if (
      typeof data.priority === "number" &&
      Number.isInteger(data.priority) &&
      data.priority >= 1 &&
      data.priority <= 100
    )
      priority = data.priority;
    else warnings.push(ignored(candidate, data, "priority", text));
  }

  let override = false;
  if (typeof data.override === "boolean") override = data.override;
  else if (data.override !== undefined) warnings.push(ignored(candidate, data, "override", text));

  let description: string | undefined;
  if (typeof data.description === "string" && data.description.trim() !== "") description = data.description.trim();
  else if (data.description !== undefined && data.description !== null && typeof data.description !== "string") {
    // A description only informs; losing it never widens what the rule applies to.
    warnings.push(ignored(candidate, data, "description", text));
  }

  const taken = takeConditions(
    read,
    { alwaysApply, match, description },
    { path: candidate.path, text, data, tool: candidate.tool },
  );
  warnings.unshift(...taken.first);
  warnings.push(...taken.last);

  // What the rule forbids never changes when it applies: a pattern that cannot be used is left out, not the rule.
  const enforcement = readEnforcement(data, {
    path: candidate.path,
    source: candidate.source,
    tool: candidate.tool,
    text,
  });
  warnings.push(...enforcement.warnings);

  const unknownKeys = Object.keys(data).filter((key) => !KNOWN_KEYS.has(key));
  // Spelt out: V8 builds a spread of the candidate plus ten keys many times slower.
  const { name, scope, source, path, displayPath } = candidate;
  const rule: Rule = {
    name,
    scope,
    source,
    path,
    displayPath,
    content,
    description,
    conditions: taken.conditions,
    alwaysApply: taken.alwaysApply,
    match,
    priority,
    override,
    unknownKeys,
  };
  if (data.requestable === true) rule.requestable = true;
  if (enforcement.enforce) rule.enforce = enforcement.enforce;
  if (candidate.trust) rule.trust = candidate.trust;
  if (candidate.pack) rule.pack = candidate.pack;
  return { rule, warnings };
}
