/**
 * Why a pack of rules (docs/team-packs.md) or a managed path was not
 * read: typed, so `packs list --json` and tests read the kind, and worded
 * here, where a person reads it, with the command that fixes it.
 */

/** What is wrong with one configured pack; the pack's rules are not delivered, everything else is. */
export type PackProblem =
  | { kind: "spec-invalid"; reason: string }
  | { kind: "not-installed"; where: string }
  | { kind: "not-locked" }
  | { kind: "lock-differs"; what: string }
  /** `from`: a Git checkout (restored by `packs install`) or what npm installed (reinstalled by npm). */
  | { kind: "hash-differs"; locked: string; found: string; from: "git" | "npm" }
  | { kind: "version-differs"; locked: string; found: string }
  | { kind: "outside-repository"; realPath: string }
  | { kind: "rules-outside-pack"; realPath: string }
  | { kind: "no-rules-folder"; folder: string }
  | { kind: "unreadable"; reason: string };

/** Whose packs: the command that installs them differs for the managed tier. */
export type PackOwner = "managed" | "user" | "repository";

const install = (owner: PackOwner) =>
  `opencode-rulebook packs install${owner === "managed" ? " --managed" : owner === "user" ? " --global" : ""}`;
const update = (owner: PackOwner) =>
  `opencode-rulebook packs update${owner === "managed" ? " --managed" : owner === "user" ? " --global" : ""}`;

/** The problem in words, and what was done: the pack is not delivered. */
export function packProblemText(problem: PackProblem, owner: PackOwner): string {
  switch (problem.kind) {
    case "spec-invalid":
      return `${problem.reason}; this pack was not read`;
    case "not-installed":
      return `is not installed (looked in ${problem.where}); not delivered: run \`${problem.where.includes("node_modules") ? "npm install" : install(owner)}\``;
    case "not-locked":
      return `is not pinned by rulebook.lock; not delivered: run \`${install(owner)}\` to pin it`;
    case "lock-differs":
      return `differs from what rulebook.lock pins (${problem.what}); not delivered: run \`${update(owner)}\``;
    case "hash-differs": {
      const fix =
        problem.from === "git"
          ? `run \`${install(owner)}\` to restore it`
          : `reinstall it (\`npm ci\`), or run \`${update(owner)}\` to accept the change`;
      return `holds rules that differ from what rulebook.lock pins (${problem.found}, locked ${problem.locked}): changed since it was installed; not delivered: ${fix}`;
    }
    case "version-differs":
      return `is installed at ${problem.found}, but rulebook.lock records ${problem.locked}; not delivered: run \`${update(owner)}\` to accept the new version, or reinstall the locked one`;
    case "outside-repository":
      return `leads to ${problem.realPath}, outside the repository: a pack the repository names must lie inside it (name it in your own opencode.json to read it from anywhere); this pack was not read`;
    case "rules-outside-pack":
      return `names a rules folder outside the pack (${problem.realPath}); this pack was not read`;
    case "no-rules-folder":
      return `has no rules folder (${problem.folder}); not delivered`;
    case "unreadable":
      return `cannot be read (${problem.reason}); not delivered`;
  }
}
