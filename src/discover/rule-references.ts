/**
 * A rule's references (`@file.md`, `#[[file:…]]`), read after its file: where
 * they may lead (docs/security.md), and each included file read like a
 * rule file.
 */
import { decodeRuleText } from "../rule/decode.js";
import {
  expandReferences,
  firstLineOf,
  type ReadResult,
  type RealPathResult,
  type ReferenceOptions,
} from "../rule/references.js";
import type { Rule } from "../rule/rule.js";
import { managedOwners, ownerProblem, type ReferenceReach, type Trust } from "../rule/trust.js";
import type { RuleWarning } from "../rule/warnings.js";
import { errorCode, errorReason } from "./fs.js";
import { globalRulesDir, managedRulesDir, openCodeConfigDir } from "./locations.js";
import { projectRootOf } from "./project.js";
import type { FoundRuleFile, SourceContext } from "./source.js";

/** What reading references needs: the sources' context and the rule size limit, which bounds each included file too. */
type ReadingContext = SourceContext & { maxRuleBytes: number };

/** Where a rule's references may lead (docs/security.md). */
export interface Reach {
  allowed: string[];
  allowedReal: string[];
  trust: ReferenceReach;
}

/**
 * A repository's rule: the repository only, its real path checked against
 * the repository's real root (a pack's rule: the pack's). A managed rule: the
 * managed folder. A user's rule: the global rules folder, the
 * OpenCode config folder and the user's other rule folders, as given and as
 * real paths (the user's own symlinks are followed).
 */
export async function reachFor(
  trust: Trust,
  context: ReadingContext & { realRoot: string },
  userFolders: readonly string[],
): Promise<Reach> {
  if (trust === "repository" || context.confined) {
    return {
      allowed: [projectRootOf(context), context.realRoot],
      allowedReal: [context.realRoot],
      trust: context.confined ? "pack" : trust,
    };
  }
  const folders = new Set<string>();
  // A managed rule's references stay in the managed folder: nothing the user or a repository writes may join the
  // managed tier.
  const places =
    trust === "managed"
      ? [managedRulesDir(context.env)]
      : [globalRulesDir(context.env, context.home), openCodeConfigDir(context.env, context.home), ...userFolders];
  for (const folder of places) {
    folders.add(folder);
    try {
      folders.add(await context.fs.realpath(folder));
    } catch {
      // A folder that does not exist holds nothing a reference could reach.
    }
  }
  return { allowed: [...folders], allowedReal: [...folders], trust };
}

export async function withReferences(
  file: FoundRuleFile,
  rule: Rule,
  warnings: RuleWarning[],
  context: ReadingContext,
  reachOf: (trust: Trust) => Promise<Reach>,
  format: Pick<ReferenceOptions, "syntaxes" | "roots">,
): Promise<{ rule: Rule; warnings: RuleWarning[]; references: string[] }> {
  let realFile = file.path;
  try {
    realFile = await context.fs.realpath(file.path);
  } catch {
    // It was just read; keep the path as found.
  }
  const expanded = await expandReferences(rule.content, {
    ...format,
    file: file.path,
    realFile,
    ...(await reachOf(file.trust)),
    realpath: (path) => realpathOf(path, context),
    read: (path) => readReference(path, context, file.trust),
    maxBytes: context.maxRuleBytes,
  });
  await onFileLines(expanded.warnings, file.path, rule.content, context);
  return {
    rule: { ...rule, content: expanded.text },
    warnings: [...warnings, ...expanded.warnings],
    references: expanded.included,
  };
}

/**
 * The warnings about the rule's own text moved from lines of its body to
 * lines of its file. The body's first line is known only from the file: read
 * again, when there are such warnings (rarely); a file changed since loses
 * the line rather than give a wrong one.
 */
async function onFileLines(
  warnings: RuleWarning[],
  path: string,
  content: string,
  context: ReadingContext,
): Promise<void> {
  const own = warnings.filter((warning) => warning.path === path && warning.line !== undefined);
  if (own.length === 0) return;
  const first = await firstLineIn(path, content, context);
  for (const warning of own) {
    if (first === undefined) delete warning.line;
    else warning.line = (warning.line as number) + first - 1;
  }
}

async function firstLineIn(path: string, content: string, context: ReadingContext): Promise<number | undefined> {
  try {
    const decoded = decodeRuleText(await context.fs.readFile(path, context.maxRuleBytes));
    return decoded.ok ? firstLineOf(decoded.text, content) : undefined;
  } catch {
    return undefined;
  }
}

async function realpathOf(path: string, context: ReadingContext): Promise<RealPathResult> {
  try {
    return { ok: true, realPath: await context.fs.realpath(path) };
  } catch (error) {
    const code = errorCode(error);
    return { ok: false, missing: code === "ENOENT" || code === "ENOTDIR", reason: errorReason(error) };
  }
}

/**
 * A referenced file's text, read like a rule file: regular files only, bounded, UTF-8 only; for a managed rule, only
 * the administrator's.
 */
async function readReference(realPath: string, context: ReadingContext, trust: Trust): Promise<ReadResult> {
  try {
    const stat = await context.fs.stat(realPath);
    if (!stat.isFile()) return { ok: false, reason: "it is not a regular file", notAFile: true };
    const planted =
      trust === "managed"
        ? ownerProblem(realPath, stat, managedOwners(process.platform, process.getuid?.()))
        : undefined;
    if (planted) return { ok: false, reason: `${planted}: a managed rule includes only the administrator's files` };
    const bytes = await context.fs.readFile(realPath, context.maxRuleBytes, stat.size);
    if (bytes.byteLength > context.maxRuleBytes)
      return { ok: false, reason: `it is over the ${context.maxRuleBytes}-byte limit` };
    const decoded = decodeRuleText(bytes);
    if (!decoded.ok) return { ok: false, reason: decoded.reason };
    return { ok: true, text: decoded.text };
  } catch (error) {
    return { ok: false, reason: errorCode(error) ?? String(error) };
  }
}
