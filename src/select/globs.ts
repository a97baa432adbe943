/**
 * File globs as rule authors mean them: relative to the project root, POSIX
 * separators, brace expansion, dot files included, and a pattern without a
 * slash (`*.ts`) matching at any depth, as Cursor and Claude Code read it.
 */
import micromatch from "micromatch";

type Matcher = (path: string) => boolean;

const OPTIONS = { dot: true } as const;
const compiled = new Map<string, Matcher>();

function matcherFor(glob: string): Matcher {
  let matcher = compiled.get(glob);
  if (!matcher) {
    // `./x` is anchored at the project root; a pattern with no slash at all matches at any depth.
    // (micromatch's own `basename` option also rewrites patterns that have a slash, so it is not used.)
    const relative = glob.replace(/^\.\//, "");
    matcher = micromatch.matcher(glob.includes("/") ? relative : `**/${relative}`, OPTIONS);
    compiled.set(glob, matcher);
  }
  return matcher;
}

/**
 * The first glob that matches `file`, or undefined. A file outside the
 * project is kept absolute and only an absolute glob can match it: a project
 * rule for `**\/*.ts` says nothing about `/etc/x.ts`.
 */
export function matchingGlob(file: string, globs: readonly string[]): string | undefined {
  const outside = file.startsWith("/");
  return globs.find((glob) => glob.startsWith("/") === outside && matcherFor(glob)(file));
}
