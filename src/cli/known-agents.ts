/**
 * The agents OpenCode knows in a project, for `check`'s warning about a name
 * in `agents:` that none has: the built-in ones, the keys of `agent` (and the
 * deprecated `mode`) in the user's and the project's opencode.json files, and
 * the Markdown files in `agent/`, `agents/` (and `mode/`, `modes/`) of
 * OpenCode's config folders: the global one, `~/.opencode`, `.opencode` from
 * the worktree down to the directory. An agent file's name is its path in
 * that folder without `.md`: `review/security.md` is `review/security`.
 *
 * A repository is untrusted input: only names are read, never a file's text;
 * the walks share a small budget, and a repository's folders are never left
 * through a symlink. Past the budget the list is incomplete, and `check` then
 * warns about no name rather than about one that may exist.
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { configFiles, readConfigFile } from "../opencode-config.js";
import { nodeRuleFs } from "../discover/fs.js";
import { foldersFromRoot, openCodeConfigDir } from "../discover/locations.js";
import type { Boundary } from "../rule/trust.js";
import { walkBudget, type WalkBudget } from "../discover/walk-limits.js";
import { walkFolder } from "../discover/walk.js";
import type { ProjectContext } from "./context.js";

/** OpenCode 1.18's own agents: the ones a user picks, the task tool's subagents, and the hidden ones it runs itself. */
const BUILT_IN_AGENTS: readonly string[] = ["build", "plan", "general", "explore", "compaction", "title", "summary"];

export interface KnownAgents {
  /** Built-in first, then as found; one spelling per name, compared ignoring case. */
  names: string[];
  /** False when a walk reached its bounds: an agent defined past them is missing. */
  complete: boolean;
}

/** Far above a real config's agent files, far below a repository built to be slow. */
export const AGENT_WALK_LIMITS = { folders: 200, entries: 5_000, files: 1_000 };
const AGENT_FOLDER_DEPTH = 8;

type ProjectPlace = Pick<ProjectContext, "env" | "home" | "directory" | "worktree" | "projectRoot">;

export async function knownAgents(project: ProjectPlace): Promise<KnownAgents> {
  const names = new Map<string, string>();
  const add = (name: string) => {
    // A name shown in a warning comes from file names a repository chose: no control characters reach the terminal.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: rejects names with control characters
    if (name === "" || /[\x00-\x1f\x7f]/.test(name) || names.has(name.toLowerCase())) return;
    names.set(name.toLowerCase(), name);
  };
  for (const name of BUILT_IN_AGENTS) add(name);

  const userFolders = userConfigFolders(project.env, project.home);
  const projectFolders = foldersFromRoot(project.directory, project.worktree).map((folder) =>
    join(folder, ".opencode"),
  );
  const files = new Set(configFiles(project.env, project.home, project.directory, project.worktree));
  for (const folder of userFolders)
    for (const name of ["opencode.jsonc", "opencode.json"]) files.add(join(folder, name));
  for (const file of files) {
    const read = readConfigFile(file);
    if (!read || "warning" in read || !isMapping(read.config)) continue;
    for (const key of ["agent", "mode"]) {
      const defined = read.config[key];
      if (isMapping(defined)) for (const name of Object.keys(defined)) add(name);
    }
  }

  const budget = walkBudget(AGENT_WALK_LIMITS);
  const repository: Boundary = { trust: "repository", realRoot: realRoot(project.projectRoot) };
  let complete = true;
  for (const [folder, boundary] of [
    ...userFolders.map((folder) => [folder, undefined] as const),
    ...projectFolders.map((folder) => [folder, repository] as const),
  ]) {
    const found = await agentFileNames(folder, budget, boundary);
    for (const name of found.names) add(name);
    complete &&= found.complete;
  }
  return { names: [...names.values()], complete };
}

/** Is `name` one of the known agents, ignoring case as the matcher does? */
export function isKnownAgent(known: KnownAgents, name: string): boolean {
  const lower = name.toLowerCase();
  return known.names.some((knownName) => knownName.toLowerCase() === lower);
}

/**
 * The user's config folders OpenCode reads agents from: the global one
 * (`$OPENCODE_CONFIG_DIR` when set, which OpenCode reads besides the XDG
 * one), and `~/.opencode`.
 */
function userConfigFolders(env: Record<string, string | undefined>, home: string): string[] {
  return [
    ...new Set([
      openCodeConfigDir(env, home),
      openCodeConfigDir({ ...env, OPENCODE_CONFIG_DIR: undefined }, home),
      join(home, ".opencode"),
    ]),
  ];
}

/**
 * The agent names the Markdown files of one config folder give: anywhere under `agent/`, `agents/`; directly in
 * `mode/`, `modes/`.
 */
async function agentFileNames(
  configFolder: string,
  budget: WalkBudget,
  boundary?: Boundary,
): Promise<{ names: string[]; complete: boolean }> {
  const names: string[] = [];
  let complete = true;
  const isMarkdown = (name: string) => name.endsWith(".md");
  for (const [folder, nested] of [
    ["agent", true],
    ["agents", true],
    ["mode", false],
    ["modes", false],
  ] as const) {
    if (budget.exhausted) return { names, complete: false };
    const walk = await walkFolder(join(configFolder, folder), nodeRuleFs, {
      accept: isMarkdown,
      enter: () => nested,
      boundary,
      budget,
      maxDepth: AGENT_FOLDER_DEPTH,
    });
    for (const file of walk.files) names.push(file.relPath.slice(0, -".md".length));
    if (walk.warnings.some((warning) => warning.code === "walk-limit" || warning.code === "folder-too-deep"))
      complete = false;
  }
  return { names, complete: complete && !budget.exhausted };
}

function realRoot(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return root;
  }
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
