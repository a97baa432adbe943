#!/usr/bin/env node
/**
 * The `opencode-rulebook` command: see, explain, check and manage rules
 * without starting OpenCode. It loads, selects and renders rules with the
 * plugin's own code, so it cannot disagree with what a session gets.
 *
 * Exit status: 0 success; 1 `check` found errors, `verify` found a `block`
 * rule broken, or a refusal (rule exists, no confirmation, no such rule);
 * 2 wrong usage, or `verify` could not read what it was to check.
 */
import { Command, CommanderError, Option } from "commander";
import { readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { createInterface } from "node:readline/promises";
import { fileURLToPath } from "node:url";
import { addCommand } from "./add.js";
import { checkCommand, listProjectFiles } from "./check.js";
import { loadProjectRules, projectContext, UsageError, type CliIo, type CommandResult } from "./context.js";
import { explainCommand } from "./explain.js";
import { gitIn } from "./git.js";
import { makeStyle, useColour } from "./format.js";
import { initCommand } from "./init.js";
import { knownAgents } from "./known-agents.js";
import { listCommand } from "./list.js";
import { addPacksCommands } from "./packs-command.js";
import { removeCommand } from "./remove.js";
import { renderCommand } from "./render.js";
import { listFlag, workingAsFlags } from "./session.js";
import { verifyCommand } from "./verify.js";
import { diffTargets, namedPaths, wholeFileTargets } from "./verify-input.js";

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: string };
  return pkg.version ?? "0.0.0";
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Runs the command line `argv` (without `node` and the script) and returns the exit status. */
export async function run(argv: readonly string[], io: CliIo, output: Output): Promise<number> {
  let outcome: CommandResult | undefined;
  const style = makeStyle(useColour(io.env, io.stdoutIsTTY));
  const errStyle = makeStyle(useColour(io.env, io.stderrIsTTY));
  const project = (options: { cwd?: string }) => projectContext(io, options.cwd);

  const program = new Command("opencode-rulebook")
    .description("See, explain, check and manage opencode-rulebook rules without starting OpenCode.")
    .version(packageVersion(), "-v, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .exitOverride()
    .configureOutput({ writeOut: (text) => output.stdout(text), writeErr: (text) => output.stderr(text) })
    .showHelpAfterError("(run with --help for usage)");
  const command = (name: string, description: string) =>
    program
      .command(name)
      .description(description)
      .addOption(new Option("-C, --cwd <dir>", "the project folder (default: the current folder)"));
  // What the session works as: rules with `agents:` or `models:` apply only for theirs.
  const agentOption = () =>
    new Option(
      "--agent <name>",
      "the agent the session works as (build, plan, general, explore, or a custom agent); without it, rules for some agents do not apply",
    );
  const modelOption = () =>
    new Option(
      "-m, --model <provider/model>",
      "the model the session works on, as opencode.json names it (anthropic/claude-sonnet-4); without it, rules for some models do not apply",
    );

  command("list", "every rule found, by scope and source: activation, size, file; shadowed rules and warnings")
    .option("--json", "machine-readable output")
    .action(async (options: { cwd?: string; json?: boolean }) => {
      const context = project(options);
      outcome = listCommand(context, await loadProjectRules(context), options, style);
    });

  command(
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
    .option("-p, --prompt <text>", "the user's prompt (keywords, @rule mentions, paths)")
    .addOption(agentOption())
    .addOption(modelOption())
    .option("--json", "machine-readable output")
    .action(
      async (
        files: string[],
        options: { cwd?: string; files?: string[]; prompt?: string; agent?: string; model?: string; json?: boolean },
      ) => {
        const workingAs = workingAsFlags(options);
        const context = project(options);
        const touched = [...files, ...listFlag(options.files)];
        outcome = explainCommand(
          context,
          await loadProjectRules(context),
          touched,
          { prompt: options.prompt, json: options.json, workingAs },
          style,
        );
      },
    );

  command("render", "print the exact rules message a new session gets (stdout), and its size (stderr)")
    .option(
      "-f, --files <files...>",
      "files the session touches (several after one --files, comma-separated, or repeated)",
    )
    .option("-p, --prompt <text>", "the user's prompt")
    .addOption(agentOption())
    .addOption(modelOption())
    .action(async (options: { cwd?: string; files?: string[]; prompt?: string; agent?: string; model?: string }) => {
      const workingAs = workingAsFlags(options);
      const context = project(options);
      outcome = renderCommand(
        context,
        await loadProjectRules(context),
        { files: listFlag(options.files), prompt: options.prompt, workingAs },
        errStyle,
      );
    });

  command(
    "check",
    "validate every rule file; exit status 1 on errors, 0 with warnings only (for CI and pre-commit hooks)",
  )
    .option("--json", "machine-readable output")
    .action(async (options: { cwd?: string; json?: boolean }) => {
      const context = project(options);
      const [loaded, files, agents] = await Promise.all([
        loadProjectRules(context),
        listProjectFiles(context.projectRoot),
        knownAgents(context),
      ]);
      outcome = checkCommand(context, loaded, files, options, style, agents);
    });

  command(
    "verify",
    "check files against what the rules forbid (`forbid:`); exit status 1 when a block rule is broken (for CI and pre-commit hooks)",
  )
    .argument(
      "[path...]",
      "files or folders to check (default: the whole project); with --diff or --staged, the changes under them",
    )
    .option("--diff [rev]", "only the lines added since <rev> (default HEAD), staged or not, and untracked files whole")
    .option("--staged", "only the lines the index adds, as `git commit` would record them (for a pre-commit hook)")
    .addOption(agentOption())
    .addOption(modelOption())
    .option("--json", "machine-readable output")
    .action(
      async (
        paths: string[],
        options: {
          cwd?: string;
          diff?: string | boolean;
          staged?: boolean;
          agent?: string;
          model?: string;
          json?: boolean;
        },
      ) => {
        const workingAs = workingAsFlags(options);
        const context = project(options);
        const named = namedPaths(context, paths);
        const git = gitIn(context.projectRoot, io.env);
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
        outcome = await verifyCommand(context, loaded, targets, { json: options.json, workingAs }, style);
      },
    );

  command("add", "write a new rule file with proper front matter (refuses to overwrite)")
    .argument("<text...>", "the rule text")
    .option("-g, --global", "write to the global rules folder instead of the project's")
    .option(
      "-f, --files <globs>",
      "deliver when the session touches a matching file (comma-separated or repeated)",
      collect,
    )
    .option(
      "-k, --keywords <words>",
      "deliver when the prompt contains one of these words (comma-separated or repeated)",
      collect,
    )
    .option("-d, --description <text>", "what the rule is about")
    .option("--on-request", "list the rule by its description; the model reads it when relevant (needs --description)")
    .option("-n, --name <name>", "the rule's name, i.e. its file name without .md (default: a slug of the text)")
    .action(
      async (
        text: string[],
        options: {
          cwd?: string;
          global?: boolean;
          files?: string[];
          keywords?: string[];
          description?: string;
          name?: string;
          onRequest?: boolean;
        },
      ) => {
        outcome = await addCommand(project(options), text.join(" "), options, style);
      },
    );

  command("remove", "delete a rule's file (asks on a terminal; needs --yes otherwise)")
    .argument("<name>", "the rule's name, as `list` shows it")
    .option("-y, --yes", "delete without asking")
    .option("-g, --global", "the global rule of that name")
    .action(async (name: string, options: { cwd?: string; yes?: boolean; global?: boolean }) => {
      const context = project(options);
      outcome = await removeCommand(context, await loadProjectRules(context), name, options, io);
    });

  addPacksCommands(program, {
    io,
    project,
    style,
    done: (result) => {
      outcome = result;
    },
  });

  command("init", "create .opencode/rules/ with a commented example and print how to enable the plugin").action(
    async (options: { cwd?: string }) => {
      outcome = await initCommand(project(options));
    },
  );

  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof UsageError) {
      output.stderr(`opencode-rulebook: ${error.message}\n`);
      return 2;
    }
    output.stderr(`opencode-rulebook: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  if (!outcome) return 0;
  if (outcome.stdout) output.stdout(outcome.stdout);
  if (outcome.stderr) output.stderr(outcome.stderr);
  return outcome.exitCode;
}

async function confirmOnTerminal(question: string): Promise<boolean> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^\s*y(es)?\s*$/i.test(await terminal.question(question));
  } finally {
    terminal.close();
  }
}

function isMain(): boolean {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  const io: CliIo = {
    env: process.env,
    home: homedir(),
    cwd: process.cwd(),
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
    confirm: confirmOnTerminal,
  };
  run(process.argv.slice(2), io, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`opencode-rulebook: ${String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
