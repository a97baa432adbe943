/**
 * A pack as the user names it in the plugin's `packs` option: an npm package
 * (its version comes from the project's package.json and lockfile), a Git
 * repository (`github:owner/repo`, `git+https://…`, `git+ssh://…`,
 * `git+file:///…`, each with an optional `#ref` and `:subdir`), or a folder.
 *
 * Only those Git forms are accepted, and every part is checked, so that what
 * reaches `git` can never be read as an option (`--upload-pack=…`), a shell
 * word, or a transport that runs a command (`ext::`).
 */

export type PackSpec =
  | { kind: "npm"; spec: string; name: string }
  | { kind: "git"; spec: string; url: string; ref?: string; subdir?: string; repo: string }
  | { kind: "folder"; spec: string; path: string };

export type GitPackSpec = Extract<PackSpec, { kind: "git" }>;

type Parsed = { pack: PackSpec } | { error: string };

/** Longer than any real spec: a bound so a pasted file is not read as one. */
const MAX_SPEC_LENGTH = 1024;
/** A control or format character, or whitespace other than a plain space (which only a folder's path may hold). */
const UNSEEN = /[^\S ]|[\p{Cc}\p{Cf}]/u;
const FOLDER = /^(?:\.{1,2}|\.{1,2}[\\/].*|\/.*|~\/.*|[A-Za-z]:[\\/].*)$/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
/** `user@host:path`, which git reads as SSH; `name@npm:…` is an npm alias, not a host. */
const SCP = /^[^@/:]+@(?!npm:)[^@/:]+:/;
const GITHUB_REPO = /^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/;
/** npm's shorthand for a GitHub repository, which packs spell `github:owner/repo`. */
const SHORTHAND = /^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+(?:#.*)?$/;

const quoted = (spec: string) => JSON.stringify(spec);

export function parsePackSpec(spec: string): { pack: PackSpec } | { error: string } {
  const refused = (why: string): Parsed => ({
    error: `pack ${quoted(spec.length > 80 ? `${spec.slice(0, 80)}…` : spec)}: ${why}`,
  });
  if (spec === "")
    return {
      error: "a pack is empty: name an npm package, a Git repository (github:owner/repo#ref) or a folder (./rules)",
    };
  if (spec.length > MAX_SPEC_LENGTH)
    return refused(`it is longer than ${MAX_SPEC_LENGTH} characters, which no package, repository or folder needs`);
  if (UNSEEN.test(spec))
    return refused(
      "it holds a control character or whitespace other than a space: write the spec on one line, without tabs",
    );
  if (spec.startsWith("-"))
    return refused('it starts with "-", which git would read as an option: name a package, a repository or a folder');
  if (FOLDER.test(spec))
    return spec.trim() === spec
      ? { pack: { kind: "folder", spec, path: spec } }
      : refused("it ends with a space: remove it");
  if (spec.startsWith("github:") || spec.startsWith("git+")) return parseGitSpec(spec, refused);
  if (SCP.test(spec))
    return refused(`scp-style addresses are not accepted: write git+ssh://${spec.replace(":", "/")} instead`);
  const scheme = SCHEME.exec(spec)?.[1];
  if (scheme) return refused(schemeAdvice(scheme.toLowerCase(), spec));
  if (spec.includes(" ")) return refused("only a folder (./…, ../…, /…, ~/…) may hold a space");
  if (SHORTHAND.test(spec)) return refused(`write github:${spec} for a GitHub repository, or ./${spec} for a folder`);
  return parseNpmSpec(spec, refused);
}

/** What to write instead of a scheme packs do not accept. */
function schemeAdvice(scheme: string, spec: string): string {
  const rest = spec.slice(scheme.length + 1);
  if (scheme === "https" || scheme === "ssh") return `a Git repository is written git+${spec}`;
  if (scheme === "http" || scheme === "git")
    return "plain http:// and git:// are not encrypted: write git+https://… or git+ssh://…";
  if (scheme === "file")
    return `a folder is written as a path (./rules, /abs/rules); a local Git repository as git+file://${rest.replace(/^\/\//, "")}`;
  if (scheme === "npm") return "an npm alias is not a pack: name the package itself, without a version";
  return `"${scheme}:" is not a pack form: write github:owner/repo, git+https://…, git+ssh://…, git+file:///…, an npm package name or a folder`;
}

function parseGitSpec(spec: string, refused: (why: string) => Parsed): Parsed {
  const hash = spec.indexOf("#");
  const repo = hash === -1 ? spec : spec.slice(0, hash);
  const url = gitUrl(repo);
  if ("error" in url) return refused(url.error);
  if (spec.includes(" ")) return refused("a Git repository's spec cannot hold a space");
  const pack: GitPackSpec = { kind: "git", spec, url: url.url, repo };
  if (hash === -1) return { pack };
  const fragment = spec.slice(hash + 1);
  if (fragment === "")
    return refused(
      "nothing follows #: name a branch, tag or commit (#v2), a sub-folder (#:frontend), or leave out the #",
    );
  const colon = fragment.indexOf(":");
  const ref = colon === -1 ? fragment : fragment.slice(0, colon);
  if (ref !== "") {
    const problem = refProblem(ref);
    if (problem) return refused(`the ref ${quoted(ref)} ${problem}`);
    pack.ref = ref;
  }
  if (colon !== -1) {
    const subdir = fragment.slice(colon + 1);
    const problem = subdirProblem(subdir);
    if (problem) return refused(`the sub-folder ${quoted(subdir)} ${problem}`);
    pack.subdir = subdir;
  }
  return { pack };
}

/** The URL git is given for a repository spec (the spec without `#…`). */
function gitUrl(repo: string): { url: string } | { error: string } {
  if (repo.startsWith("github:")) {
    const path = repo.slice("github:".length);
    const parts = path.split("/");
    if (!GITHUB_REPO.test(path) || parts.some((part) => part === "." || part === "..")) {
      return {
        error: "a GitHub repository is written github:owner/repo, each with letters, digits, '.', '_' and '-' only",
      };
    }
    return { url: `https://github.com/${path}${path.endsWith(".git") ? "" : ".git"}` };
  }
  const url = repo.slice("git+".length);
  const scheme = SCHEME.exec(url)?.[1];
  if (scheme === "file") {
    const absolute = url.startsWith("file:///") && url.length > "file:///".length;
    return absolute
      ? { url }
      : { error: "a local repository is written with an absolute path: git+file:///path/to/repo" };
  }
  if (scheme !== "https" && scheme !== "ssh")
    return { error: "a Git URL is written git+https://host/path, git+ssh://[user@]host/path or git+file:///path" };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { error: `${url} is not a URL` };
  }
  const hasHost = url.startsWith(`${scheme}://`) && !url.startsWith(`${scheme}:///`) && parsed.hostname !== "";
  if (!hasHost) return { error: `the URL names no host: write git+${scheme}://host/owner/repo` };
  // A host or user starting with "-" reaches ssh as an option (CVE-2017-1000117).
  if (parsed.hostname.startsWith("-") || parsed.username.startsWith("-"))
    return { error: 'the host and user of a URL cannot start with "-"' };
  if (parsed.password !== "")
    return {
      error: "the URL holds a password, which would be written into the lock file: use a credential helper or SSH",
    };
  if (parsed.pathname === "" || parsed.pathname === "/")
    return { error: "the URL names no repository: write its path after the host" };
  return { url };
}

/**
 * Why git's check-ref-format would refuse `ref` (or it could pass for an option); undefined when it is a fine ref (a
 * 40-hex commit is one).
 */
function refProblem(ref: string): string | undefined {
  if (ref.startsWith("-")) return 'starts with "-", which git would read as an option';
  if (ref === "@") return 'is "@", which git does not accept as a ref';
  if (ref.includes("..")) return 'holds "..", which git does not accept in a ref';
  if (ref.includes("@{")) return 'holds "@{", which git does not accept in a ref';
  const bad = /[\\~^:?*[\s\p{Cc}]/u.exec(ref)?.[0];
  if (bad) return `holds ${quoted(bad)}, which git does not accept in a ref`;
  if (ref.endsWith("/") || ref.endsWith("."))
    return `ends with ${quoted(ref.slice(-1))}, which git does not accept in a ref`;
  const parts = ref.split("/");
  if (parts.some((part) => part === ""))
    return "has an empty part (a leading or doubled /), which git does not accept in a ref";
  if (parts.some((part) => part.startsWith(".")))
    return 'has a part starting with ".", which git does not accept in a ref';
  if (parts.some((part) => part.endsWith(".lock")))
    return 'has a part ending with ".lock", which git does not accept in a ref';
  return undefined;
}

/** Why `subdir` cannot name a folder inside the repository; undefined when it can. */
function subdirProblem(subdir: string): string | undefined {
  if (subdir === "") return "is empty: write #ref:folder, or leave out the :";
  if (subdir.includes("\\")) return "holds a backslash: separate folders with /";
  if (subdir.startsWith("-")) return 'starts with "-", which a command could read as an option';
  if (subdir.startsWith("/") || /^[A-Za-z]:/.test(subdir))
    return "is absolute: write it relative to the repository's top (#v2:packages/rules)";
  const parts = subdir.split("/");
  if (parts.some((part) => part === "." || part === ".."))
    return 'has a "." or ".." part: write the folder\'s path from the repository\'s top';
  if (parts.some((part) => part === "")) return "has an empty part (a doubled or trailing /)";
  return undefined;
}

/** validate-npm-package-name's rules for a new package, with npm's reason each. */
function parseNpmSpec(spec: string, refused: (why: string) => Parsed): Parsed {
  const versioned = /^((?:@[^/@]+\/)?[^/@]+)@(.*)$/s.exec(spec);
  if (versioned) {
    const [, name, version] = versioned as unknown as [string, string, string];
    const advice = `write ${quoted(name)}, then npm install ${name}@${version}`;
    return refused(`a pack names no version: it comes from the project's package.json and lockfile (${advice})`);
  }
  const problem = npmNameProblem(spec);
  return problem ? refused(`it is not an npm package name: ${problem}`) : { pack: { kind: "npm", spec, name: spec } };
}

function npmNameProblem(name: string): string | undefined {
  if (name.length > 214) return "a package name is at most 214 characters long";
  const scoped = /^@([^/]+)\/([^/]+)$/.exec(name);
  if (name.startsWith("@") && !scoped) return "a scoped name is written @scope/name";
  if (!name.startsWith("@") && name.includes("/")) return "only a scoped name (@scope/name) holds a /";
  if (name.startsWith(".") || name.startsWith("_")) return 'a package name cannot start with "." or "_"';
  if (name !== name.toLowerCase()) return "a package name is lower case";
  if (/[~'!()*]/.test(name)) return "a package name cannot hold ~ ' ! ( ) *";
  const parts = scoped ? [scoped[1] as string, scoped[2] as string] : [name];
  if (parts.some((part) => encodeURIComponent(part) !== part))
    return "a package name holds only URL-safe characters (letters, digits, - . _)";
  if (name === "node_modules" || name === "favicon.ico") return `${name} is a name npm keeps for itself`;
  return undefined;
}

/**
 * How a person sees a pinned pack: `@acme/opencode-rules@2.1.0`, `github:acme/rules@3f2c1ab`,
 * `github:acme/rules@3f2c1ab:frontend`, a folder by its spec.
 */
export function packLabel(pack: PackSpec, pin?: { version?: string; commit?: string }): string {
  if (pack.kind === "npm") return pin?.version ? `${pack.name}@${pin.version}` : pack.spec;
  if (pack.kind === "git" && pin?.commit)
    return `${pack.repo}@${pin.commit.slice(0, 7)}${pack.subdir ? `:${pack.subdir}` : ""}`;
  return pack.spec;
}
