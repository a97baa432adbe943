/**
 * The commands that read the rules and change nothing (README, "The command
 * line"): list, explain, render, check and verify.
 */
import { dirname, join } from "node:path";
import { type Command, Option } from "commander";
import { checkCommand, listProjectFiles } from "./check.js";
import { loadProjectRules, type CliIo, type CommandResult, type ProjectContext } from "./context.js";
import { explainCommand } from "./explain.js";
import type { Style } from "./format.js";
import { gitIn } from "./git.js";
import { knownAgents } from "./known-agents.js";
import { listCommand } from "./list.js";
import { renderCommand } from "./render.js";
import { listFlag } from "./session.js";
import { type FactFlags, factsOfOptions, withFactOptions } from "./fact-options.js";
import { withRecord } from "./record-sink.js";
import { verifyCommand } from "./verify.js";
import { diffTargets, wholeFileTargets } from "./verify-input.js";
import { namedPaths } from "./verify-paths.js";

/** What a command needs of the program it is added to (src/cli/main.ts). */
export interface CommandWiring {
  io: CliIo;
  project(options: { cwd?: string }): ProjectContext;
  done(outcome: CommandResult): void;
  /** For standard output, and for standard error. */
  style: Style;
  errStyle: Style;
}

/** The folders of the project's files (project-relative), each once, to look up rule files from. */
const projectPaths = (context: ProjectContext, files: readonly string[]): string[] => [
  ...new Set(files.map((file) => join(context.projectRoot, dirname(file)))),
];

/** A command of `program` that works on a project folder, `--cwd` (default: the current folder). */
export const projectCommand = (program: Command, name: string, description: string): Command =>
  program
    .command(name)
    .description(description)
    .addOption(new Option("-C, --cwd <dir>", "the project folder (default: the current folder)"));

export function addRulesCommands(program: Command, wiring: CommandWiring): void {
  const { project, done, style } = wiring;
  const command = (name: string, description: string) => projectCommand(program, name, description);

  command("list", "every rule found, by scope and source: activation, size, file; shadowed rules and warnings")
    .option("--json", "machine-readable output")
    .action(async (options: { cwd?: string; json?: boolean }) => {
      const context = project(options);
      // Every project file's folders: the rule files a session could bring by looking up (a sub-folder's GEMINI.md).
      const files = await listProjectFiles(context.projectRoot);
      done(listCommand(context, await loadProjectRules(context, projectPaths(context, files.files)), options, style));
    });

  const explain = command(
    "explain",
    "which rules a session touching <file>… (receiving --prompt, as --agent on --model) would get, and why; which not, and why",
  )
    .argument(
      "[file...]",
      "files the session touches, relative to the project folder; read for rules that apply by content",
    )
    .option(
      "-f, --files <files...>",
      "more files, as render takes them (several after one --files, comma-separated, or repeated)",
    )
    .option("-p, --prompt <text>", "the user's prompt (keywords, @rule mentions, paths)");
  withFactOptions(explain)
    .option("--json", "machine-readable output")
    .action(
      async (
        files: string[],
        options: { cwd?: string; files?: string[]; prompt?: string; json?: boolean } & FactFlags,
      ) => {
        const context = project(options);
        const workingAs = await factsOfOptions(options, context.projectRoot);
        const touched = [...files, ...listFlag(options.files)];
        done(
          explainCommand(
            context,
            await loadProjectRules(context, touched),
            touched,
            { prompt: options.prompt, json: options.json, workingAs },
            style,
          ),
        );
      },
    );

  const render = command("render", "print the exact rules message a new session gets (stdout), and its size (stderr)")
    .option(
      "-f, --files <files...>",
      "files the session touches (several after one --files, comma-separated, or repeated)",
    )
    .option("-p, --prompt <text>", "the user's prompt");
  withFactOptions(render).action(async (options: { cwd?: string; files?: string[]; prompt?: string } & FactFlags) => {
    const context = project(options);
    const workingAs = await factsOfOptions(options, context.projectRoot);
    done(
      renderCommand(
        context,
        await loadProjectRules(context, listFlag(options.files)),
        { files: listFlag(options.files), prompt: options.prompt, workingAs },
        wiring.errStyle,
      ),
    );
  });

  command(
    "check",
    "validate every rule file; exit status 1 on errors, 0 with warnings only (for CI and pre-commit hooks)",
  )
    .option("--json", "machine-readable output")
    .action(async (options: { cwd?: string; json?: boolean }) => {
      const context = project(options);
      const [files, agents] = await Promise.all([listProjectFiles(context.projectRoot), knownAgents(context)]);
      const loaded = await loadProjectRules(context, projectPaths(context, files.files));
      done(checkCommand(context, loaded, files, options, style, agents));
    });

  const verify = command(
    "verify",
    "check files against what the rules forbid (`forbid:`); exit status 1 when a block rule is broken (for CI and pre-commit hooks)",
  )
    .argument(
      "[path...]",
      "files or folders to check (default: the whole project); with --diff or --staged, the changes under them",
    )
    .option("--diff [rev]", "only the lines added since <rev> (default HEAD), staged or not, and untracked files whole")
    .option("--staged", "only the lines the index adds, as `git commit` would record them (for a pre-commit hook)");
  withFactOptions(verify)
    .option("--json", "machine-readable output")
    .action(
      async (
        paths: string[],
        options: {
          cwd?: string;
          diff?: string | boolean;
          staged?: boolean;
          json?: boolean;
        } & FactFlags,
      ) => {
        const context = project(options);
        const workingAs = await factsOfOptions(options, context.projectRoot);
        const named = namedPaths(context, paths);
        const git = gitIn(context.projectRoot, wiring.io.env);
        const staged = options.staged === true;
        const input =
          options.diff !== undefined || staged
            ? diffTargets(
                context,
                named,
                { rev: typeof options.diff === "string" ? options.diff : undefined, staged },
                git,
              )
            : wholeFileTargets(context, named, git);
        const [loaded, targets] = await Promise.all([loadProjectRules(context), input]);
        done(
          await withRecord(context, (record) =>
            verifyCommand(context, loaded, targets, { json: options.json, workingAs, record }, style),
          ),
        );
      },
    );
}
