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
import { Command, CommanderError } from "commander";
import { readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { createInterface } from "node:readline/promises";
import { fileURLToPath } from "node:url";
import { projectContext, UsageError, type CliIo, type CommandResult } from "./context.js";
import { makeStyle, useColour } from "./format.js";
import { addPacksCommands } from "./packs-command.js";
import { addRulesCommands } from "./rules-commands.js";
import { addStatsCommand } from "./stats.js";
import { addInitCommand, addWriteCommands } from "./write-commands.js";

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: string };
  return pkg.version ?? "0.0.0";
}

/** Runs the command line `argv` (without `node` and the script) and returns the exit status. */
export async function run(argv: readonly string[], io: CliIo, output: Output): Promise<number> {
  let outcome: CommandResult | undefined;
  const style = makeStyle(useColour(io.env, io.stdoutIsTTY));
  const errStyle = makeStyle(useColour(io.env, io.stderrIsTTY));
  const project = (options: { cwd?: string }) => projectContext(io, options.cwd);
  const done = (result: CommandResult) => {
    outcome = result;
  };

  const program = new Command("opencode-rulebook")
    .description("See, explain, check and manage opencode-rulebook rules without starting OpenCode.")
    .version(packageVersion(), "-v, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .exitOverride()
    .configureOutput({ writeOut: (text) => output.stdout(text), writeErr: (text) => output.stderr(text) })
    .showHelpAfterError("(run with --help for usage)");
  // In the order `--help` lists them: the commands that read the rules, those that write rule files, the packs, init.
  const wiring = { io, project, done, style, errStyle };
  addRulesCommands(program, wiring);
  addStatsCommand(program, wiring);
  addWriteCommands(program, wiring);
  addPacksCommands(program, wiring);
  addInitCommand(program, wiring);

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
