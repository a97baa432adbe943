/**
 * A narrowing kind's command-line option whose value is one name (`--agent
 * plan`, `--branch main`): the text trimmed, then taken as the fact or
 * refused with the kind's own usage words. Pure.
 */
export function nameOption(spec: {
  readonly flag: string;
  readonly value: string;
  readonly help: string;
  /** Whether a trimmed name is one the kind can hold for. */
  readonly accepts: (name: string) => boolean;
  /** The usage error's words for a name it cannot. */
  readonly problem: string;
}): {
  // Spelt out, not NarrowingKind's `option`: that type is the contract's own, and the built declarations of the kinds
  // must be able to name this one.
  readonly flag: string;
  readonly value: string;
  readonly help: string;
  parse(text: string): { fact: string } | { problem: string };
} {
  const { accepts, problem, ...shown } = spec;
  return {
    ...shown,
    parse: (text) => {
      const name = text.trim();
      return accepts(name) ? { fact: name } : { problem };
    },
  };
}
