/**
 * The `rule` tool as both OpenCode generations offer it: its name, what the
 * model reads about it, and its one argument (OpenCode 2 takes the JSON
 * schema here; OpenCode 1 a zod schema of the same words, in its adapter).
 */

/** The `rule` tool's answer when the plugin fails to give one: the model goes on, and the log says why. */
export const RULE_TOOL_FAILED =
  "The rule could not be read (opencode-rulebook failed; its log says why). Go on without it.";

/** The name the tool is registered under. */
export const RULE_TOOL_NAME = "rule";

export const RULE_TOOL_DESCRIPTION =
  "Read one of this project's rules (opencode-rulebook) by its name. The rules message at the start of the session lists rules to read on request, with what each covers: read the matching rule before doing work it concerns, then follow it.";

/** What the tool's one argument is, as the model reads it (every host's schema says the same). */
export const RULE_NAME_DESCRIPTION = "The rule's name, exactly as listed (for example `database` or `backend/api`).";

/** OpenCode 2's `input`. */
export const RULE_TOOL_INPUT = {
  type: "object",
  properties: { name: { type: "string", description: RULE_NAME_DESCRIPTION } },
  required: ["name"],
} as const;

/** The name the tool's call gives, whatever the model sent. */
export const requestedRuleName = (input: unknown): string =>
  String((input as { name?: unknown } | null | undefined)?.name ?? "");
