/**
 * A pack's hash, as `rulebook.lock` pins it: one SHA-256 over every rule file
 * the pack holds and every file its rules include, each by its path in the
 * pack and its bytes' digest. Pure: the plugin computes it at every start
 * from digests its parse cache keeps, `packs install` from a fresh read, so
 * the two agree byte for byte.
 */
import { createHash } from "node:crypto";

/**
 * One file of a pack: its path inside the pack (POSIX), and its bytes' SHA-256; none for a file not read (too large,
 * unreadable).
 */
interface HashedFile {
  path: string;
  digest?: string;
}

export function packHash(files: readonly HashedFile[]): string {
  const lines = files.map(({ path, digest }) => `${path}\t${digest ?? "-"}\n`).sort();
  const hash = createHash("sha256");
  for (const line of lines) hash.update(line);
  return `sha256-${hash.digest("hex")}`;
}
