/**
 * `verify [paths…] [--diff [rev] | --staged]`: the project's files (or the
 * lines a change adds) against what its rules forbid, for CI and pre-commit
 * hooks. A rule forbids in the files its globs match (every file without
 * globs), and with `agents:`/`models:` only for `--agent`/`--model`, as
 * `explain` has it; the engine's own check (violationsIn) decides.
 *
 * Each rule is held to its own mode, whatever the plugin's `enforce`
 * option: that option is a person's way out in their sessions (it may sit in
 * their own opencode.json), and a guard must say the same on every machine.
 * Rule files are not checked: they name what they forbid.
 *
 * Exit status: 1 a `block` rule broken; 0 clean, or `warn` rules only; 2
 * (main.ts) wrong usage, or what was to be checked could not be read (not a
 * git repository, a revision git does not know, a named path that does not
 * exist or leads out of the repository: verify-paths.ts).
 */
import { relative, sep } from "node:path";
import type { SessionFacts } from "../conditions/list.js";
import type { AddedLine } from "../enforce/proposed.js";
import { violationsIn, type CheckedChange, type Violation } from "../enforce/violations.js";
import { codeSpan, shownLine } from "../render/refusal.js";
import type { Rule } from "../rule/rule.js";
import { inScope } from "../select/scope.js";
import { enforcingRules, type LoadedRules } from "../formats/load.js";
import { result, shownPath, type CommandResult, type ProjectContext } from "./context.js";
import { plural, type Style } from "./format.js";
import type { Target, Targets } from "./verify-input.js";
import { shownText } from "../render/shown-text.js";
import { verifyRecorded } from "../record/from-note.js";
import type { RecordSink } from "../record/store.js";

interface VerifyOptions {
  json?: boolean;
  workingAs?: SessionFacts;
  /** Where its findings are kept (the record of what the rules did), when it is kept. */
  record?: RecordSink;
}

/** A line that breaks a rule. */
type Finding = Violation & { file: string; lineNumber: number };

/** The check has no time limit here: patterns match in linear time, and a person waits for the whole answer. */
const UNBOUNDED = { now: () => 0, deadline: Number.POSITIVE_INFINITY };

export async function verifyCommand(
  project: ProjectContext,
  loaded: LoadedRules,
  input: Targets,
  options: VerifyOptions,
  style: Style,
): Promise<CommandResult> {
  const as = options.workingAs ?? {};
  // The same rules a session checks: a shadowed user rule's forbids hold here too.
  const enforcing = enforcingRules(loaded);
  const forbidding = enforcing.filter((rule) => (rule.enforce?.forbid.length ?? 0) > 0);
  const notFor = forbidding.filter((rule) => !inScope(rule, as)).map((rule) => rule.name);
  // A pack not installed as pinned holds rules that could not be checked: verify says so and does not pass (exit 2).
  const unread = (loaded.packs ?? []).filter((pack) => pack.problem).map(({ configured }) => configured.spec);
  const notes = [
    ...input.notes,
    ...optionNote(project),
    ...(unread.length > 0
      ? [
          `packs not checked, not installed as pinned (run opencode-rulebook packs install --frozen): ${unread.join(", ")}`,
        ]
      : []),
  ];
  if (notFor.length > 0)
    notes.push(`not checked, for other agents or models (see --agent, --model): ${notFor.join(", ")}`);

  const ruleFiles = new Set(loaded.files.map((file) => relative(project.projectRoot, file.path).split(sep).join("/")));
  const findings: Finding[] = [];
  const skipped: Array<Extract<Target, { kind: "skipped" }>> = [];
  let checked = 0;
  if (forbidding.length > notFor.length) {
    for await (const target of input.targets) {
      if (ruleFiles.has(target.file)) continue;
      if (target.kind === "skipped") skipped.push(target);
      else {
        checked++;
        findings.push(...findingsIn(target.file, target.added, enforcing, as));
      }
    }
  }
  for (const event of verifyRecorded(findings, project.projectRoot, Date.now())) options.record?.add(event);
  const errors = findings.filter((finding) => finding.mode === "block").length;
  const warnings = findings.length - errors;
  const exitCode = errors > 0 ? 1 : unread.length > 0 ? 2 : 0;

  if (options.json) {
    const json = {
      ok: errors === 0,
      errors,
      warnings,
      filesChecked: checked,
      compared: input.compared ?? null,
      findings: findings.map((finding) => ({
        file: finding.file,
        line: finding.lineNumber,
        rule: finding.rule.name,
        ruleFile: finding.rule.displayPath,
        pattern: finding.pattern.written,
        mode: finding.mode,
        text: shownLine(finding.line),
      })),
      skipped: skipped.map(({ file, reason, detail }) => ({ file, reason, detail: detail ?? null })),
      notChecked: notFor,
      notes,
    };
    return result(`${JSON.stringify(json, null, 2)}\n`, "", exitCode);
  }

  // Names (files, rules) and lines with control characters shown as `?`: a file named with an escape sequence cannot
  // rewrite a CI log.
  const lines = findings.map((finding) => {
    const label = finding.mode === "block" ? style.red("error  ") : style.yellow("warning");
    const where = `${shownText(finding.file)}:${finding.lineNumber}: rule "${shownText(finding.rule.name)}"`;
    return `${label} ${where} forbids ${codeSpan(shownLine(finding.pattern.written))}: ${shownLine(finding.line)}`;
  });
  // Files too large or unreadable are named; binary files (images, archives) are many, and counted.
  for (const { file, reason, detail } of skipped) {
    if (reason !== "binary")
      lines.push(
        `${style.dim("note   ")} ${shownText(`${file}: not checked, ${reason}${detail ? ` (${detail})` : ""}`)}`,
      );
  }
  const binary = skipped.filter((skip) => skip.reason === "binary").length;
  if (binary > 0) notes.push(`${plural(binary, "binary file")} not checked`);
  for (const note of notes) lines.push(`${style.dim("note   ")} ${shownText(note)}`);
  if (lines.length > 0) lines.push("");
  const compared = input.compared ? ` (${shownText(input.compared)})` : "";
  if (forbidding.length === 0) lines.push("No rule forbids text in files: nothing to check.");
  else if (forbidding.length === notFor.length)
    lines.push("No rule that forbids text in files applies: nothing checked.");
  else if (findings.length === 0) lines.push(style.green(`No rule broken in ${plural(checked, "file")}${compared}.`));
  else {
    const files = new Set(findings.map((finding) => finding.file)).size;
    const summary = `${plural(errors, "error")}, ${plural(warnings, "warning")} in ${files} of ${plural(checked, "file")} checked${compared}`;
    lines.push(errors > 0 ? style.red(summary) : style.yellow(summary));
  }
  return result(`${lines.join("\n")}\n`, "", exitCode);
}

/**
 * Every line of `file` that breaks a rule, one finding per rule and line.
 * The engine reports a change's first line per rule: the file is scanned
 * whole first (most files break nothing), then line by line.
 */
function findingsIn(file: string, added: readonly AddedLine[], rules: readonly Rule[], as: SessionFacts): Finding[] {
  if (violationsIn([{ kind: "file", file, added }], rules, as, "block", UNBOUNDED).violations.length === 0) return [];
  const eachLine: CheckedChange[] = added.map((line) => ({ kind: "file", file, added: [line] }));
  return violationsIn(eachLine, rules, as, "block", UNBOUNDED).violations.map((violation) => ({
    ...violation,
    file,
    lineNumber: violation.lineNumber ?? 0,
  }));
}

/** The plugin's `enforce` option, when it is not `block`: what sessions do, and that verify does not follow it. */
function optionNote(project: ProjectContext): string[] {
  const { enforce } = project.options;
  if (enforce === "block") return [];
  const where = project.configPath ? ` (${shownPath(project, project.configPath)})` : "";
  const sessions = enforce === "off" ? "sessions check nothing" : "sessions only warn";
  return [`the plugin's "enforce" option is "${enforce}"${where}: ${sessions}; verify holds each rule to its own mode`];
}
