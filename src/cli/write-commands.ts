/** The commands that write rule files (README, "The command line"): add, remove and init. */
import type { Command } from "commander";
import { addCommand } from "./add.js";
import { loadProjectRules } from "./context.js";
import { initCommand } from "./init.js";
import { removeCommand } from "./remove.js";
import { type CommandWiring, projectCommand } from "./rules-commands.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function addWriteCommands(program: Command, wiring: CommandWiring): void {
  const { project, done, style } = wiring;
  const command = (name: string, description: string) => projectCommand(program, name, description);

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
        done(await addCommand(project(options), text.join(" "), options, style));
      },
    );

  command("remove", "delete a rule's file (asks on a terminal; needs --yes otherwise)")
    .argument("<name>", "the rule's name, as `list` shows it")
    .option("-y, --yes", "delete without asking")
    .option("-g, --global", "the global rule of that name")
    .action(async (name: string, options: { cwd?: string; yes?: boolean; global?: boolean }) => {
      const context = project(options);
      done(await removeCommand(context, await loadProjectRules(context), name, options, wiring.io));
    });
}

/** `init`, last in `--help` (after the packs). */
export function addInitCommand(program: Command, { project, done }: CommandWiring): void {
  projectCommand(
    program,
    "init",
    "create .opencode/rules/ with a commented example and print how to enable the plugin",
  ).action(async (options: { cwd?: string }) => {
    done(await initCommand(project(options)));
  });
}
