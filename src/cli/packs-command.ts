/** The `packs` commands on the command line (docs/team-packs.md): list, install, update, add, remove. */
import { type Command, Option } from "commander";
import { realpathSync } from "node:fs";
import { loadProjectRules, type CliIo, type CommandResult, type ProjectContext } from "./context.js";
import type { Style } from "./format.js";
import { packGit } from "./pack-git.js";
import { packsAddCommand, packsRemoveCommand } from "./packs-config.js";
import { installCommand, updateCommand } from "./packs-install.js";
import { packsListCommand } from "./packs-list.js";
import { packOwner } from "./packs-owner.js";
import type { PinDeps } from "./packs-pin.js";

interface Wiring {
  io: Pick<CliIo, "env">;
  project(options: { cwd?: string }): ProjectContext;
  done(outcome: CommandResult): void;
  style: Style;
}

type OwnerOptions = { cwd?: string; global?: boolean; managed?: boolean };

export function addPacksCommands(program: Command, wiring: Wiring): void {
  const packs = program
    .command("packs")
    .description("rules shared by a team: packs from npm, Git or a folder, pinned by .opencode/rulebook.lock");
  const command = (name: string, description: string, owners: "both" | "global" = "both") => {
    const sub = packs
      .command(name)
      .description(description)
      .addOption(new Option("-C, --cwd <dir>", "the project folder (default: the current folder)"));
    sub.option("-g, --global", "the packs of your own OpenCode config (locked in its folder)");
    if (owners === "both")
      sub.option(
        "--managed",
        "the managed packs an administrator lists in rulebook.json beside the managed rules folder",
      );
    return sub;
  };
  const pinDeps = (project: ProjectContext): PinDeps => ({
    git: packGit(wiring.io.env),
    discovery: project.discovery,
    realRoot: realRoot(project.projectRoot),
  });

  command(
    "list",
    "each configured pack: whose, where it resolves, what the lock pins, installed or not, its rules, what shadows what",
  )
    .option("--json", "machine-readable output")
    .action(async (options: OwnerOptions & { json?: boolean }) => {
      const project = wiring.project(options);
      wiring.done(packsListCommand(project, await loadProjectRules(project), options, wiring.style));
    });

  command(
    "install",
    "fetch every Git pack at the commit the lock pins (a new one at its ref, then lock it); record npm packs",
  )
    .option("--frozen", "for CI: fail when the lock is missing or does not match the configuration; never write it")
    .action(async (options: OwnerOptions & { frozen?: boolean }) => {
      const project = wiring.project(options);
      wiring.done(await installCommand(project, packOwner(project, options), options, pinDeps(project), wiring.style));
    });

  command("update", "move Git packs to the newest commit of their ref, rewrite the lock, and print which rules changed")
    .argument("[spec...]", "only these packs (default: all)")
    .action(async (specs: string[], options: OwnerOptions) => {
      const project = wiring.project(options);
      wiring.done(await updateCommand(project, packOwner(project, options), specs, pinDeps(project), wiring.style));
    });

  command("add", "name a pack in opencode.json (comments kept) and install it", "global")
    .argument(
      "<spec>",
      "an npm package, github:owner/repo[#ref][:folder], git+https://…, git+ssh://…, git+file:///…, or a folder",
    )
    .action(async (spec: string, options: OwnerOptions) => {
      const project = wiring.project(options);
      const owner = packOwner(project, options);
      // The packs as configured after the edit: the project is read again.
      const install = () => {
        const after = wiring.project(options);
        return installCommand(after, owner, {}, pinDeps(after), wiring.style);
      };
      wiring.done(await packsAddCommand(project, spec, owner, install, wiring.style));
    });

  command("remove", "take a pack out of opencode.json and out of the lock", "global")
    .argument("<spec>", "the pack, as configured")
    .action(async (spec: string, options: OwnerOptions) => {
      const project = wiring.project(options);
      wiring.done(await packsRemoveCommand(project, spec, packOwner(project, options)));
    });
}

function realRoot(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
