/**
 * Where Git packs are kept on the user's machine: one bare repository per
 * URL that fetches go into, and one checkout per commit beside it. A checkout
 * never changes once made (a commit's files do not), so the plugin reads
 * it without touching the network and the command line only adds to it.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";

/**
 * The user's pack cache, beside the parse cache: `$XDG_CACHE_HOME/opencode/rulebook/packs`, else
 * `~/.cache/opencode/rulebook/packs` (empty = unset).
 */
export function userPackCache(env: Record<string, string | undefined>, home: string): string {
  return join(env.XDG_CACHE_HOME || join(home, ".cache"), "opencode", "rulebook", "packs");
}

/** The folder of everything kept for one URL: its name is a hash, so no URL can lead outside the cache. */
function gitUrlFolder(cache: string, url: string): string {
  return join(cache, "git", createHash("sha256").update(url).digest("hex").slice(0, 16));
}

/** One checkout per commit: `<cache>/git/<key>/<commit>`. */
export function gitCheckoutFolder(cache: string, url: string, commit: string): string {
  return join(gitUrlFolder(cache, url), commit);
}

/** The bare repository fetched into, per URL: `<cache>/git/<key>/repo.git`. */
export function gitMirrorFolder(cache: string, url: string): string {
  return join(gitUrlFolder(cache, url), "repo.git");
}
