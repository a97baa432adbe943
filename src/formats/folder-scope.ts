/**
 * The scoping of a sub-folder's rules (a nested `.cursor/rules` or
 * `.windsurf/rules`, found by discover/nested-search.ts) to that folder.
 *
 * A sub-folder's rules belong to it: `pkg/a/.cursor/rules/x.mdc` is named
 * `pkg/a/x`, its globs are made relative to the project root (`*.ts` →
 * `pkg/a/**\/*.ts`, `src/**` → `pkg/a/src/**`, `/index.ts` → `pkg/a/index.ts`),
 * and a rule that would always apply, or be offered on request by its
 * description, applies to files under `pkg/a/**` instead: both tools attach a
 * sub-folder's rules when files of that folder are worked on, so such a rule
 * never reaches a session working elsewhere. Manual rules stay manual.
 */
import { relative, sep } from "node:path";
import { GLOB_KEYS } from "../conditions/files.js";
import { readList } from "../conditions/front-matter-list.js";
import { hasDescription, without } from "./mapping.js";

/** `pkg/a` for the folder `<root>/pkg/a`; "" for the root itself or a folder outside it. */
export function folderPrefix(root: string, folder: string): string {
  const rel = relative(root, folder);
  return rel === "" || rel.startsWith("..") ? "" : rel.split(sep).join("/");
}

/** `pkg/a` for a rule file shown as `pkg/a/.cursor/rules/x.mdc` with `rulesFolder` `.cursor/rules`; "" at the project root. */
export function prefixOf(displayPath: string, rulesFolder: string): string {
  const at = displayPath.indexOf(`/${rulesFolder}/`);
  return at > 0 ? displayPath.slice(0, at) : "";
}

/** A sub-folder's rule's conditions, relative to the project root and limited to its folder. */
export function scopeToFolder(data: Record<string, unknown>, prefix: string): Record<string, unknown> {
  const globs: string[] = [];
  for (const key of GLOB_KEYS) {
    const list = readList(data[key]);
    if (list === undefined) return data; // Malformed: the common reader reports it and skips the rule.
    globs.push(...list);
  }
  const rest = without(data, ...GLOB_KEYS);
  const keywords = readList(data.keywords) ?? [];
  const describedOnly =
    data.alwaysApply === false && globs.length === 0 && keywords.length === 0 && hasDescription(data);
  if (
    data.alwaysApply === true ||
    describedOnly ||
    (data.alwaysApply === undefined && globs.length === 0 && keywords.length === 0)
  ) {
    return { ...without(rest, "alwaysApply"), globs: [`${prefix}/**`] };
  }
  return globs.length > 0 ? { ...rest, globs: globs.map((glob) => prefixGlob(glob, prefix)) } : rest;
}

/**
 * A glob of a rule in the folder `prefix`, relative to the project root:
 * one starting with `/` or `./`, or holding a `/`, is relative to the folder;
 * a bare one (`*.ts`) matches at any depth below it. At the root (prefix ""),
 * only the leading `/` or `./` goes.
 */
export function prefixGlob(glob: string, prefix: string): string {
  if (glob.startsWith("!")) return `!${prefixGlob(glob.slice(1), prefix)}`;
  const anchored = glob.replace(/^\.?\//, "");
  if (prefix === "") return anchored;
  if (anchored !== glob || glob.includes("/")) return `${prefix}/${anchored}`;
  return `${prefix}/**/${glob}`;
}
