/**
 * `list`: every rule found, grouped by scope and source, with how it activates
 * (and for which agents and models) and its size: what it costs in a rules
 * message (its whole block), the same figure the Rules panel and `explain` give.
 * A rule with an earlier rule's text says so; the total counts that text once.
 */
import { ACTIVATING, conditionOf, NARROWING, type AnyKind } from "../conditions/list.js";
import { tierOf } from "../rule/origin.js";
import type { Rule } from "../rule/rule.js";
import { warningLine, warningText, type RuleWarning } from "../rule/warnings.js";
import { sameTextWords } from "../select/reasons.js";
import { activationOf, ruleSetIndex } from "../select/rule-set.js";
import { scopeText } from "../select/scope.js";
import type { LoadedRules } from "../formats/load.js";
import { result, shownPath, type CommandResult, type ProjectContext } from "./context.js";
import { activationLabel, columns, plural, sizeLabel, type Style } from "./format.js";
import { sectionBytes } from "../render/fit.js";
import { ruleTokens, tokensLabel } from "../render/tokens.js";
import { enforceJson, enforcesLabel } from "./forbids.js";

interface ListOptions {
  json?: boolean;
}

export function listCommand(
  project: ProjectContext,
  loaded: LoadedRules,
  options: ListOptions,
  style: Style,
): CommandResult {
  const warnings = [...project.configWarnings, ...loaded.warnings];
  const ruleFiles = new Set([...loaded.rules, ...loaded.shadowed.map(({ rule }) => rule)].map((rule) => rule.path));
  const warned = new Set(loaded.warnings.map((warning) => warning.path));
  // Found, parsed without a problem, yet not a rule: `enabled: false`.
  const disabled = loaded.files.filter((file) => !ruleFiles.has(file.path) && !warned.has(file.path));
  // A rule with an earlier rule's body: a session that needs both gets the text once, as the first (that one's name).
  const twins = ruleSetIndex(loaded.rules).twins;
  const sameTextAs = (rule: Rule): Rule | undefined => {
    const first = twins.get(rule)?.[0];
    return first === rule ? undefined : first;
  };

  if (options.json) {
    const json = {
      directory: project.directory,
      worktree: project.worktree,
      projectRoot: project.projectRoot,
      configPath: project.configPath ?? null,
      rules: loaded.rules.map((rule) => ({ ...ruleJson(rule), sameTextAs: sameTextAs(rule)?.name ?? null })),
      shadowed: loaded.shadowed.map(({ rule, by }) => ({
        ...ruleJson(rule),
        shadowedBy: { name: by.name, scope: by.scope, source: by.source, path: by.path, displayPath: by.displayPath },
      })),
      disabled: disabled.map((file) => ({
        name: file.name,
        scope: file.scope,
        source: file.source,
        path: file.path,
        displayPath: file.displayPath,
      })),
      warnings: warnings.map((warning) => warningJson(project, warning)),
    };
    return result(`${JSON.stringify(json, null, 2)}\n`);
  }

  const lines: string[] = [];
  if (loaded.rules.length === 0) lines.push(style.dim("No rules found."), "");
  const groups = new Map<string, Rule[]>();
  for (const rule of loaded.rules) {
    // Managed rules first (message order), then each scope by source; a pack's rules under their pack.
    const key =
      rule.source === "managed"
        ? "managed"
        : `${tierOf(rule) === "managed" ? "managed" : rule.scope} · ${rule.pack ? `pack ${rule.pack.label}` : rule.source}`;
    groups.set(key, [...(groups.get(key) ?? []), rule]);
  }
  for (const [key, rules] of groups) {
    lines.push(style.bold(key));
    lines.push(
      ...columns(
        rules.map((rule) => [
          style.cyan(rule.name),
          activationCell(rule, style, sameTextAs(rule)),
          `${sectionBytes(rule)} B`,
          tokensLabel(ruleTokens(rule)),
          style.dim(rule.displayPath),
        ]),
      ),
    );
    lines.push("");
  }
  if (loaded.shadowed.length > 0) {
    lines.push(style.bold("Shadowed (not delivered)"));
    lines.push(
      ...columns(
        loaded.shadowed.map(({ rule, by }) => [
          rule.name,
          style.dim(rule.displayPath),
          `shadowed by ${by.displayPath}`,
        ]),
      ),
      "",
    );
  }
  if (disabled.length > 0) {
    lines.push(style.bold("Disabled (enabled: false)"));
    lines.push(...columns(disabled.map((file) => [file.name, style.dim(file.displayPath)])), "");
  }
  if (warnings.length > 0) {
    lines.push(style.bold(style.yellow("Warnings")));
    for (const warning of warnings) lines.push(`  ${warningLine(warning, shownPath(project, warning.path))}`);
    lines.push("");
  }
  // A text is counted once, as a session gets it.
  const counted = loaded.rules.filter((rule) => sameTextAs(rule) === undefined);
  const copies = loaded.rules.length - counted.length;
  const bytes = counted.reduce((sum, rule) => sum + sectionBytes(rule), 0);
  const tokens = counted.reduce((sum, rule) => sum + ruleTokens(rule), 0);
  const managed = loaded.rules.filter((rule) => tierOf(rule) === "managed").length;
  const counts = [
    ...(managed > 0 ? [`${managed} managed`] : []),
    ...(["global", "project"] as const).map(
      (scope) => `${loaded.rules.filter((rule) => rule.scope === scope && tierOf(rule) !== "managed").length} ${scope}`,
    ),
  ].join(", ");
  lines.push(
    `${plural(loaded.rules.length, "rule")} (${counts}), ${sizeLabel(bytes, tokens)}${copies > 0 ? ` (${copies} with the same text as another, counted once)` : ""}; ${plural(warnings.length, "warning")}`,
  );
  return result(`${lines.join("\n")}\n`);
}

/**
 * How the rule activates here, for which agents and models, whether it
 * forbids, for another tool's rule what that tool calls its type, and
 * whether its text is an earlier rule's (`as`): `always · for agent plan ·
 * enforces: block`, `on request (Agent Requested)`, `always (Always) · same text as code-style`.
 */
function activationCell(rule: Rule, style: Style, as: Rule | undefined): string {
  const parts = [activationLabel(rule)];
  const only = scopeText(rule);
  if (only !== undefined) parts.push(`for ${only}`);
  const enforces = enforcesLabel(rule);
  if (enforces !== undefined) parts.push(style.bold(enforces));
  const activation = parts.join(" · ");
  const typed = rule.toolType === undefined ? activation : `${activation} ${style.dim(`(${rule.toolType})`)}`;
  return as === undefined ? typed : `${typed} · ${style.dim(sameTextWords(as.name))}`;
}

function ruleJson(rule: Rule) {
  return {
    name: rule.name,
    scope: rule.scope,
    tier: tierOf(rule),
    source: rule.source,
    pack: rule.pack
      ? {
          spec: rule.pack.spec,
          label: rule.pack.label,
          ...(rule.pack.commit ? { commit: rule.pack.commit } : { version: rule.pack.version ?? null }),
        }
      : null,
    activation: activationOf(rule),
    activationLabel: activationLabel(rule),
    toolType: rule.toolType ?? null,
    description: rule.description ?? null,
    ...kindsJson(rule, ACTIVATING),
    match: rule.match,
    alwaysApply: rule.alwaysApply ?? null,
    priority: rule.priority,
    // Only for a rule with a scope: absent, it is for every agent and model.
    ...kindsJson(rule, NARROWING),
    enforce: enforceJson(rule),
    // What the rule costs in a rules message: its block (tags, name and text), as the Rules panel counts it.
    bytes: sectionBytes(rule),
    tokens: ruleTokens(rule),
    path: rule.path,
    displayPath: rule.displayPath,
  };
}

/** Each kind's entries (`globs`, `agents`…), as the kind gives them (a scope's value is its names). */
const kindsJson = (rule: Rule, kinds: readonly AnyKind[]) =>
  Object.assign({}, ...kinds.map((kind) => kind.json(conditionOf(rule, kind) as readonly string[] | undefined)));

function warningJson(project: ProjectContext, warning: RuleWarning) {
  return {
    path: warning.path,
    displayPath: shownPath(project, warning.path),
    line: warning.line ?? null,
    message: warningText(warning),
  };
}
