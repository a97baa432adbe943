/**
 * `packs list [--json]`: each configured pack, whose it is, where it
 * resolves, what the lock pins, whether it is installed as pinned, how many
 * rules it holds, and what shadows what between it and the other rules.
 */
import type { LoadedRules } from "../formats/load.js";
import type { PackReport } from "../packs/load-packs.js";
import { packProblemText } from "../rule/pack-problems.js";
import type { Rule } from "../rule/rule.js";
import { result, shownPath, type CommandResult, type ProjectContext } from "./context.js";
import { columns, plural, type Style } from "./format.js";

const OWNER_WORDS = { managed: "managed", user: "user", repository: "project" } as const;

export function packsListCommand(
  project: ProjectContext,
  loaded: LoadedRules,
  options: { json?: boolean },
  style: Style,
): CommandResult {
  const reports = loaded.packs ?? [];
  const shadows = (report: PackReport) => shadowingOf(report, loaded);
  if (options.json) {
    const packs = reports.map((report) => {
      const { configured, installed, problem } = report;
      const locked = installed?.locked;
      return {
        spec: configured.spec,
        owner: OWNER_WORDS[configured.place.owner],
        configFile: configured.place.configFile,
        lockFile: configured.place.lockFile,
        path: installed?.rulesFolder ?? null,
        label: installed?.label ?? null,
        description: installed?.description ?? null,
        version: installed?.version ?? null,
        commit: installed?.commit ?? null,
        locked: locked
          ? { ...(locked.kind === "git" ? { commit: locked.commit } : { version: locked.version }), hash: locked.hash }
          : null,
        hash: report.hash ?? null,
        installed: problem === undefined,
        problem: problem ? { kind: problem.kind, message: packProblemText(problem, configured.place.owner) } : null,
        rules: report.rules,
        ...shadows(report),
      };
    });
    return result(`${JSON.stringify({ packs }, null, 2)}\n`);
  }
  if (reports.length === 0)
    return result(`${style.dim("No packs configured: add one with opencode-rulebook packs add <spec>.")}\n`);
  const lines: string[] = [];
  for (const report of reports) {
    const { configured, installed, problem } = report;
    const pin = installed?.commit
      ? `commit ${installed.commit.slice(0, 7)}`
      : installed?.version
        ? `version ${installed.version}`
        : "";
    const state = problem
      ? style.red(`not delivered: ${packProblemText(problem, configured.place.owner)}`)
      : style.green(`installed, ${plural(report.rules, "rule")}`);
    lines.push(
      `${style.bold(configured.spec)}  ${style.dim(`(${OWNER_WORDS[configured.place.owner]}, ${shownPath(project, configured.place.configFile)})`)}`,
    );
    const rows = [
      ...(installed?.description ? [["about", installed.description]] : []),
      ["resolves to", installed ? shownPath(project, installed.rulesFolder) : style.dim("(not found)")],
      // A folder pack lives in the repository and is never locked; an npm pack not in the lock yet is said to be.
      ...(pin
        ? [
            [
              "pinned",
              `${pin}${installed?.locked || installed?.spec.kind === "folder" ? "" : style.dim(" (not in rulebook.lock)")}`,
            ],
          ]
        : []),
      ["state", state],
    ];
    const { shadowedBy, shadows: over } = shadows(report);
    for (const entry of shadowedBy) rows.push(["shadowed", `${entry.rule} by ${entry.by}`]);
    for (const entry of over) rows.push(["shadows", `${entry.rule} of ${entry.by}`]);
    lines.push(...columns(rows), "");
  }
  return result(`${lines.join("\n")}\n`);
}

/** The pack's rules shadowed by other rules, and the rules its rules shadow, by name and path. */
function shadowingOf(report: PackReport, loaded: LoadedRules) {
  const ofPack = (rule: Rule) =>
    rule.pack?.spec === report.configured.spec && rule.trust === report.configured.place.owner;
  return {
    shadowedBy: loaded.shadowed
      .filter(({ rule }) => ofPack(rule))
      .map(({ rule, by }) => ({ rule: rule.name, by: by.displayPath })),
    shadows: loaded.shadowed
      .filter(({ by }) => ofPack(by))
      .map(({ rule }) => ({ rule: rule.name, by: rule.displayPath })),
  };
}
