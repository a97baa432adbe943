/**
 * The session facts on the command line: one option per narrowing condition
 * kind (`--agent`, `--model`, …), as the kind words it. A fact the project
 * itself tells (a kind that observes it, like the repository's branch) is read
 * from the project when its option is not given, as a session would read it.
 */
import { type Command, Option } from "commander";
import { NARROWING, type SessionFacts } from "../conditions/list.js";
import { nodeRuleFs, smallFileReader } from "../discover/fs.js";
import { UsageError } from "./context.js";

/** The options a command was given: its own, and the facts' by each kind's flag. */
export type FactFlags = Readonly<Record<string, unknown>>;

/** `command` with one option per fact, in the list's order. */
export function withFactOptions(command: Command): Command {
  for (const { option } of NARROWING) {
    command.addOption(
      new Option(`${option.short ? `${option.short}, ` : ""}${option.flag} ${option.value}`, option.help),
    );
  }
  return command;
}

/** The facts the options give (a usage error for one that cannot be read); the others observed in `root`. */
export async function factsOfOptions(options: FactFlags, root: string): Promise<SessionFacts> {
  const facts: Record<string, unknown> = {};
  const read = smallFileReader(nodeRuleFs);
  for (const kind of NARROWING) {
    const given = options[new Option(`${kind.option.flag} ${kind.option.value}`).attributeName()];
    if (typeof given === "string") {
      const parsed = kind.option.parse(given);
      if ("problem" in parsed) throw new UsageError(`${kind.option.flag} ${JSON.stringify(given)}: ${parsed.problem}`);
      facts[kind.fact] = parsed.fact;
    } else if (kind.observe) {
      const observed = await kind.observe(read, root);
      if (observed !== undefined) facts[kind.fact] = observed;
    }
  }
  return facts as SessionFacts;
}
