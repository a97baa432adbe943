/**
 * Hooks called with input OpenCode never promised (issue 30): nothing, the
 * wrong types, objects of the wrong shape. Each hook must settle (no throw,
 * no rejection) every time, and say so in the log once however often it is
 * called.
 */
import { expect } from "vitest";

/** Argument lists a hook may meet: missing, null, empty, wrong types, half-right shapes. */
export const MALFORMED_CALLS: ReadonlyArray<readonly unknown[]> = [
  [undefined, undefined],
  [],
  [null, null],
  [{}, {}],
  [42, "text"],
  [[], () => undefined],
  [
    { sessionID: 42, tool: {}, event: "x" },
    { parts: "x", message: null, output: 7, args: 5, messages: {} },
  ],
  [
    { sessionID: "", event: { type: "session.created", properties: null } },
    { parts: [null], message: {} },
  ],
  [
    { sessionID: "ses_odd", event: { type: "file.edited", properties: {} }, tool: 9, messageID: 3 },
    { parts: [{ type: "text", text: 5 }], message: { time: "x" } },
  ],
];

/** How often each malformed call is repeated: the log must not grow with it. */
export const REPEATS = 50;

/** Calls `hook` with every malformed argument list, `REPEATS` times each; fails naming the call that threw or rejected. */
export async function callMalformed(name: string, hook: (...args: unknown[]) => unknown): Promise<void> {
  for (const args of MALFORMED_CALLS)
    for (let i = 0; i < REPEATS; i++) {
      const outcome = await Promise.resolve()
        .then(() => hook(...args))
        .then(
          () => "settled",
          (error: unknown) => `threw: ${error instanceof Error ? error.message : String(error)}`,
        );
      expect(outcome, `${name}(${args.map((arg) => JSON.stringify(arg) ?? String(arg)).join(", ")})`).toBe("settled");
    }
}

/** The log lines that say a hook failed, by the name the plugin gives it. */
export function linesNaming(lines: readonly string[], hookName: string): string[] {
  const escaped = hookName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const naming = new RegExp(`Handling ${escaped}( for session \\S+)? failed`);
  return lines.filter((line) => naming.test(line));
}
