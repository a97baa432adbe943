/**
 * `packs add <spec> [--global]` and `packs remove <spec> [--global]`: the
 * spec written into (or taken out of) the plugin's options in opencode.json,
 * comments and layout kept; then the pack installed, or forgotten by the lock.
 * The Git cache is left as it is: another project may pin the same commit.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { openCodeConfigDir } from "../discover/locations.js";
import { findPluginOptions, readPackageJson, userPluginOptions } from "../opencode-config.js";
import { lockText, readLock } from "../packs/lock.js";
import { parsePackSpec } from "../packs/spec.js";
import { isRulebookSpec } from "../plugin-spec.js";
import { result, shownPath, type CommandResult, type ProjectContext, UsageError } from "./context.js";
import type { Style } from "./format.js";
import { addPackToConfig, removePackFromConfig } from "./pack-options-edit.js";
import type { PackOwnerChoice } from "./packs-owner.js";

/** Writes the spec into the owner's config; `install` then installs the packs as configured now. */
export async function packsAddCommand(
  project: ProjectContext,
  spec: string,
  owner: PackOwnerChoice,
  install: () => Promise<CommandResult>,
  style: Style,
): Promise<CommandResult> {
  const parsed = parsePackSpec(spec);
  if ("error" in parsed) throw new UsageError(parsed.error);
  const file = configFileFor(project, owner);
  const edit = addPackToConfig(await readText(file), spec, isEntryIn(project, file));
  if ("error" in edit) return result("", `${shownPath(project, file)}: ${edit.error}\n`, 1);
  if (edit.changed) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, edit.text);
  }
  const said = edit.changed
    ? `Added ${spec} to ${shownPath(project, file)}`
    : style.dim(`${spec} is already in ${shownPath(project, file)}`);
  const installed = await install();
  return result(`${said}\n${installed.stdout}`, installed.stderr, installed.exitCode);
}

export async function packsRemoveCommand(
  project: ProjectContext,
  spec: string,
  owner: PackOwnerChoice,
): Promise<CommandResult> {
  const file = configFileFor(project, owner);
  const edit = removePackFromConfig(await readText(file), spec, isEntryIn(project, file));
  if ("error" in edit) return result("", `${shownPath(project, file)}: ${edit.error}\n`, 1);
  const lines: string[] = [];
  if (edit.changed) {
    await writeFile(file, edit.text);
    lines.push(`Removed ${spec} from ${shownPath(project, file)}`);
  } else lines.push(`${spec} is not in ${shownPath(project, file)}`);
  const lockFile = owner.place.lockFile;
  const text = await readText(lockFile);
  const read = text === "" ? undefined : readLock(text);
  if (read && "lock" in read && Object.hasOwn(read.lock.packs, spec)) {
    const packs = { ...read.lock.packs };
    delete packs[spec];
    await writeFile(lockFile, lockText({ ...read.lock, packs }));
    lines.push(`Forgot it in ${shownPath(project, lockFile)}`);
  }
  return result(`${lines.join("\n")}\n`, "", edit.changed ? 0 : 1);
}

/**
 * The config file the owner's packs are written to: the one that lists the plugin, else `opencode.jsonc` or
 * `opencode.json` where it would be.
 */
function configFileFor(project: ProjectContext, owner: PackOwnerChoice): string {
  if (owner.trust === "managed")
    throw new UsageError(
      "managed packs are listed by an administrator in rulebook.json beside the managed rules folder: edit it there",
    );
  const user = userPluginOptions(project.env, project.home).path;
  if (owner.trust === "user") return user ?? existingOr(openCodeConfigDir(project.env, project.home));
  const found = findPluginOptions(project.env, project.home, project.directory, project.worktree).path;
  return found !== undefined && found !== user ? found : existingOr(project.projectRoot);
}

function existingOr(folder: string): string {
  const jsonc = join(folder, "opencode.jsonc");
  return existsSync(jsonc) ? jsonc : join(folder, "opencode.json");
}

const isEntryIn = (project: ProjectContext, configFile: string) => (entry: string) =>
  isRulebookSpec(entry, { configFile, directory: project.directory, home: project.home }, readPackageJson);

const readText = (file: string): Promise<string> =>
  readFile(file, "utf8").catch((error: NodeJS.ErrnoException) =>
    error.code === "ENOENT" ? "" : Promise.reject(error),
  );
