/**
 * The session facts the project itself tells (a condition kind that
 * observes its fact: the repository's branch), read again before each turn,
 * tool result and new session. Each read is small (`smallFileReader`) and
 * bounded in time: a hung mount leaves the fact unknown, never the hook waiting.
 */
import { NARROWING, type SessionFacts } from "../conditions/list.js";
import { type RuleFs, smallFileReader } from "../discover/fs.js";
import { withTimeout } from "./timing.js";

/** How long one fact may take to read before it counts as not known. */
const OBSERVE_MS = 250;

/** The facts the kinds observe in `root`; none when no kind observes one. */
export function factsObserver(fs: Pick<RuleFs, "stat" | "readFile">, root: string): () => Promise<SessionFacts> {
  const observing = NARROWING.filter((kind) => kind.observe !== undefined);
  const read = smallFileReader(fs);
  return async () => {
    const facts: Record<string, unknown> = {};
    const found = await Promise.all(
      observing.map((kind) => withTimeout(kind.observe?.(read, root) ?? Promise.resolve(undefined), OBSERVE_MS)),
    );
    observing.forEach((kind, i) => {
      if (found[i] !== undefined) facts[kind.fact] = found[i];
    });
    return facts as SessionFacts;
  };
}
