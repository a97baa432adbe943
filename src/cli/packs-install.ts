/**
 * `packs install [--frozen]` and `packs update [spec…]`: the one place Git
 * runs for packs. Install fetches every Git pack at the commit its owner's
 * lock pins (a pack new to the lock at what its ref names now) and records
 * npm packs as npm installed them; `--frozen` (CI) fails when the lock is
 * missing or does not match the configuration, and never writes it. Update
 * moves Git packs to the newest commit of their ref and says what changed.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { ConfiguredPack } from "../packs/configured.js";
import { differenceText, lockDifferences, type LockedPack, lockText, type PackLock, readLock } from "../packs/lock.js";
import { parsePackSpec, type PackSpec } from "../packs/spec.js";
import type { Rule } from "../rule/rule.js";
import { result, shownPath, type CommandResult, type ProjectContext } from "./context.js";
import { plural, type Style } from "./format.js";
import { checkoutAgain, type PinDeps, pinPack, type Pinned } from "./packs-pin.js";
import type { PackOwnerChoice } from "./packs-owner.js";

interface InstallOptions {
  frozen?: boolean;
}

/** The packs of one owner, the lock that pins them, and what reading it went wrong. */
interface OwnerPacks {
  packs: Array<{ configured: ConfiguredPack; spec: PackSpec }>;
  lockFile: string;
  lockText?: string;
  lock?: PackLock;
}

export async function installCommand(
  project: ProjectContext,
  owner: PackOwnerChoice,
  options: InstallOptions,
  deps: PinDeps,
  style: Style,
): Promise<CommandResult> {
  const read = await ownerPacks(project, owner);
  if ("error" in read) return result("", `${read.error}\n`, 1);
  const lines: string[] = [];
  const failures: string[] = [];
  if (options.frozen) {
    const differences = lockDifferences(
      read.packs.map(({ spec }) => spec),
      read.lock,
    );
    if (differences.length > 0) return result("", `${differences.map(differenceText).join("\n")}\n`, 1);
  }
  const next: PackLock = { lockfileVersion: 1, packs: {} };
  for (const { configured, spec } of read.packs) {
    if (spec.kind === "folder") {
      lines.push(`${configured.spec}  ${style.dim("a folder: read where it is, not locked")}`);
      continue;
    }
    const locked = lockedFor(read.lock, configured.spec, spec);
    let pinned = await pinPack(configured, spec, deps, locked?.kind === "git" ? locked.commit : undefined);
    if (!("error" in pinned) && spec.kind === "git" && locked && pinned.entry.hash !== locked.hash) {
      // The cache was edited since install: the commit's own files are checked out again.
      await checkoutAgain(spec, configured, (locked as { commit: string }).commit);
      pinned = await pinPack(configured, spec, deps, (locked as { commit: string }).commit);
    }
    if ("error" in pinned) {
      failures.push(pinned.error);
      continue;
    }
    // Install never moves a pin: npm's files other than the lock records wait for npm or `packs update`.
    if (
      locked?.kind === "npm" &&
      (pinned.entry.kind !== "npm" || pinned.entry.version !== locked.version || pinned.entry.hash !== locked.hash)
    ) {
      failures.push(
        `pack ${configured.spec}: npm installed ${pinned.label}, whose rules differ from what rulebook.lock records (${locked.version}): reinstall the locked version (npm ci), or run opencode-rulebook packs update to accept it`,
      );
      next.packs[configured.spec] = locked;
      continue;
    }
    if (locked && pinned.entry.hash !== locked.hash) {
      // The commit's own files hash otherwise than the lock says: the lock was edited, or written by another version.
      const what = "the commit's rules differ from the lock's hash";
      if (options.frozen) {
        failures.push(`pack ${configured.spec}: ${what}: run opencode-rulebook packs update and commit the lock`);
        continue;
      }
      lines.push(style.yellow(`${configured.spec}: ${what}; the lock now records the commit's`));
    }
    next.packs[configured.spec] = pinned.entry;
    lines.push(`${style.cyan(configured.spec)}  ${pinned.label}  ${plural(pinned.rules.length, "rule")}`);
  }
  if (read.packs.length === 0) lines.push(style.dim("No packs configured."));
  const text = lockText(next);
  if (
    !options.frozen &&
    failures.length === 0 &&
    text !== read.lockText &&
    (read.packs.length > 0 || read.lockText !== undefined)
  ) {
    await mkdir(dirname(read.lockFile), { recursive: true });
    await writeFile(read.lockFile, text);
    lines.push(`Wrote ${shownPath(project, read.lockFile)}`);
  }
  return result(
    `${lines.join("\n")}\n`,
    failures.length > 0 ? `${failures.join("\n")}\n` : "",
    failures.length > 0 ? 1 : 0,
  );
}

export async function updateCommand(
  project: ProjectContext,
  owner: PackOwnerChoice,
  only: readonly string[],
  deps: PinDeps,
  style: Style,
): Promise<CommandResult> {
  const read = await ownerPacks(project, owner);
  if ("error" in read) return result("", `${read.error}\n`, 1);
  const unknown = only.filter((spec) => !read.packs.some(({ configured }) => configured.spec === spec));
  if (unknown.length > 0)
    return result("", `Not configured: ${unknown.join(", ")} (see opencode-rulebook packs list)\n`, 2);
  const lines: string[] = [];
  const failures: string[] = [];
  const next: PackLock = { lockfileVersion: 1, packs: { ...(read.lock?.packs ?? {}) } };
  for (const { configured, spec } of read.packs) {
    if (spec.kind === "folder" || (only.length > 0 && !only.includes(configured.spec))) continue;
    const locked = lockedFor(read.lock, configured.spec, spec);
    const before = locked?.kind === "git" ? await pinPack(configured, spec, deps, locked.commit) : undefined;
    const after = await pinPack(configured, spec, deps);
    if ("error" in after) {
      failures.push(after.error);
      continue;
    }
    next.packs[configured.spec] = after.entry;
    const was = before && !("error" in before) ? before : undefined;
    lines.push(
      `${style.cyan(configured.spec)}  ${was && was.label !== after.label ? `${was.label} → ` : ""}${after.label}`,
    );
    lines.push(...changes(was, after).map((line) => `  ${line}`));
  }
  // Entries for packs no longer configured go.
  for (const spec of Object.keys(next.packs))
    if (!read.packs.some(({ configured }) => configured.spec === spec)) delete next.packs[spec];
  const text = lockText(next);
  if (failures.length === 0 && text !== read.lockText) {
    await mkdir(dirname(read.lockFile), { recursive: true });
    await writeFile(read.lockFile, text);
    lines.push(`Wrote ${shownPath(project, read.lockFile)}`);
  }
  return result(
    `${lines.join("\n")}\n`,
    failures.length > 0 ? `${failures.join("\n")}\n` : "",
    failures.length > 0 ? 1 : 0,
  );
}

/** Rules added, removed and changed between two pins of a pack. */
function changes(before: Pinned | undefined, after: Pinned): string[] {
  if (!before) return [`${plural(after.rules.length, "rule")}`];
  const byName = (rules: readonly Rule[]) => new Map(rules.map((rule) => [rule.name, rule]));
  const was = byName(before.rules);
  const now = byName(after.rules);
  const added = [...now.keys()].filter((name) => !was.has(name));
  const removed = [...was.keys()].filter((name) => !now.has(name));
  const changed = [...now.keys()].filter(
    (name) =>
      was.has(name) &&
      JSON.stringify({ ...was.get(name), path: "" }) !== JSON.stringify({ ...now.get(name), path: "" }),
  );
  const line = (word: string, names: string[]) => (names.length > 0 ? [`${word}: ${names.join(", ")}`] : []);
  const lines = [...line("added", added), ...line("removed", removed), ...line("changed", changed)];
  return lines.length > 0 ? lines : ["no rule changed"];
}

/** The lock's entry for a spec when it still describes it. */
function lockedFor(lock: PackLock | undefined, key: string, spec: PackSpec): LockedPack | undefined {
  const entry = lock && Object.hasOwn(lock.packs, key) ? lock.packs[key] : undefined;
  if (!entry) return undefined;
  if (spec.kind === "git")
    return entry.kind === "git" && entry.url === spec.url && entry.ref === spec.ref && entry.subdir === spec.subdir
      ? entry
      : undefined;
  return spec.kind === "npm" && entry.kind === "npm" && entry.name === spec.name ? entry : undefined;
}

async function ownerPacks(project: ProjectContext, owner: PackOwnerChoice): Promise<OwnerPacks | { error: string }> {
  const packs: OwnerPacks["packs"] = [];
  for (const configured of project.packs.filter((pack) => pack.place.owner === owner.trust)) {
    const parsed = parsePackSpec(configured.spec);
    if ("error" in parsed) return { error: parsed.error };
    packs.push({ configured, spec: parsed.pack });
  }
  const lockFile = owner.place.lockFile;
  const text = await readFile(lockFile, "utf8").catch((error: NodeJS.ErrnoException) =>
    error.code === "ENOENT" ? undefined : Promise.reject(error),
  );
  if (text === undefined) return { packs, lockFile };
  const read = readLock(text);
  if ("error" in read) return { error: `${shownPath(project, lockFile)}: ${read.error}` };
  return { packs, lockFile, lockText: text, lock: read.lock };
}
