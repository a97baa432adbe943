/**
 * `add "rule text"`: writes a new rule file with front matter produced by a
 * YAML serialiser (never by string concatenation), and refuses to overwrite.
 */
import { existsSync, promises as fs } from "node:fs";
import { dirname, join } from "node:path";
import matter from "gray-matter";
import { parseRule } from "../rule/parse.js";
import { warningText } from "../rule/warnings.js";
import { globalRulesDir, displayPath, projectRulesDirs } from "../discover/locations.js";
import { result, shownPath, UsageError, type CommandResult, type ProjectContext } from "./context.js";
import { activationLabel, type Style } from "./format.js";
import { listFlag } from "./session.js";

interface AddOptions {
  global?: boolean;
  files?: string[];
  keywords?: string[];
  description?: string;
  name?: string;
  onRequest?: boolean;
}

/** A file name from rule text: its first words, lower case, letters and digits joined by `-`. */
function slugOf(text: string): string {
  const words = text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLocaleLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
  let slug = "";
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > 40 && slug) break;
    slug = next.slice(0, 60);
  }
  return slug || "rule";
}

/** A rule name as a path inside the rules folder: `style`, `db/sql`; no `..`, no hidden parts. */
function validRuleName(name: string): string | undefined {
  const bare = name.replace(/\.(md|mdc)$/i, "");
  const parts = bare.split("/");
  if (bare === "" || parts.some((part) => part === "" || part.startsWith(".") || !/^[\p{L}\p{N}._-]+$/u.test(part)))
    return undefined;
  return bare;
}

/** The project rules folder `add` writes to: the nearest existing `.opencode/rules` from the directory up, else the project root's. */
function projectRulesFolder(project: ProjectContext): string {
  const dirs = projectRulesDirs(project.directory, project.worktree);
  return [...dirs].reverse().find((dir) => existsSync(dir)) ?? (dirs[0] as string);
}

/** The text of a rule file: YAML front matter (only when there is something to say) and the rule text. */
function ruleFileText(text: string, options: AddOptions): string {
  const data: Record<string, unknown> = {};
  if (options.description !== undefined && options.description.trim() !== "")
    data.description = options.description.trim();
  const globs = listFlag(options.files);
  const keywords = listFlag(options.keywords);
  if (globs.length > 0) data.globs = globs;
  if (keywords.length > 0) data.keywords = keywords;
  if (options.onRequest) data.alwaysApply = false;
  const body = `${text.trim()}\n`;
  return Object.keys(data).length === 0 ? body : matter.stringify(body, data);
}

export async function addCommand(
  project: ProjectContext,
  text: string,
  options: AddOptions,
  _style: Style,
): Promise<CommandResult> {
  if (text.trim() === "") throw new UsageError("the rule text is empty");
  if (options.onRequest && !options.description)
    throw new UsageError("--on-request needs --description: the model chooses on-request rules by their description");
  if (options.onRequest && (listFlag(options.files).length > 0 || listFlag(options.keywords).length > 0)) {
    throw new UsageError("--on-request cannot be combined with --files or --keywords");
  }
  const name = validRuleName(options.name ?? slugOf(text));
  if (!name)
    throw new UsageError(
      `--name ${JSON.stringify(options.name)}: use letters, digits, ".", "_" and "-", with "/" for sub-folders`,
    );
  const folder = options.global ? globalRulesDir(project.env, project.home) : projectRulesFolder(project);
  const path = join(folder, `${name}.md`);
  const shown = options.global ? displayPath(path, "", project.home) : shownPath(project, path);
  for (const existing of [path, join(folder, `${name}.mdc`)]) {
    if (existsSync(existing)) {
      return result(
        "",
        `A rule named "${name}" already exists: ${options.global ? displayPath(existing, "", project.home) : shownPath(project, existing)}. Choose another --name, or remove it first.\n`,
        1,
      );
    }
  }
  const fileText = ruleFileText(text, options);
  const bytes = Buffer.from(fileText, "utf8");
  // Discovery skips a file over the limit, so writing one would only leave a rule that never loads.
  const limit = project.options.maxRuleBytes;
  if (bytes.byteLength > limit) {
    return result(
      "",
      `The rule file would be ${bytes.byteLength} bytes, over the ${limit}-byte limit per rule (option "maxRuleBytes"); nothing was written. Shorten the rule or split it into several.\n`,
      1,
    );
  }
  // The file must read back as the rule meant: parse it as discovery will.
  const parsed = parseRule(
    { name, scope: options.global ? "global" : "project", source: "native", path, displayPath: shown },
    bytes,
  );
  if (!parsed.rule || parsed.warnings.length > 0) {
    return result(
      "",
      `The rule would not load as written (${parsed.warnings.map(warningText).join("; ") || "no rule"}); nothing was written.\n`,
      1,
    );
  }
  await fs.mkdir(dirname(path), { recursive: true });
  try {
    await fs.writeFile(path, bytes, { flag: "wx" });
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST")
      return result(
        "",
        `A rule named "${name}" already exists: ${shown}. Choose another --name, or remove it first.\n`,
        1,
      );
    throw error;
  }
  return result(
    `Created ${shown} (rule "${name}", ${options.global ? "global" : "project"}): ${activationLabel(parsed.rule)}\n`,
  );
}
