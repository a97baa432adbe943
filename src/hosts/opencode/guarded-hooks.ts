/**
 * Every function OpenCode calls, guarded (both generations, their terminal
 * UIs too). OpenCode calls a hook with whatever it has: a hook that throws
 * fails the user's message, tool call, compaction or model step. A hook that
 * fails answers its neutral value (nothing changed, the call let run), and
 * says so in the log once per hook: one called a thousand times with input
 * it cannot read writes one line, not a thousand, and the line says so.
 *
 * A refusal (a tool call the rules forbid) is the one error a hook throws on
 * purpose, made with `refusal`: it passes.
 */
import { errorText } from "../../engine/timing.js";
import type { Logger } from "../../log.js";

const REFUSAL = Symbol("opencode-rulebook refusal");

/** The error a hook throws on purpose to refuse a tool call: OpenCode fails the call with it, and the model reads its text as the call's result. */
export function refusal(text: string): Error {
  return Object.assign(new Error(text), { [REFUSAL]: true });
}

const isRefusal = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[REFUSAL] === true;

// biome-ignore lint/suspicious/noExplicitAny: a hook's parameters are whatever its host declares; the guard passes them on untouched
type AnyFunction = (...args: any[]) => unknown;

interface HookGuards {
  /** A hook OpenCode awaits: always answers a promise, `neutral` when the hook fails. */
  async<F extends AnyFunction>(
    name: string,
    neutral: Awaited<ReturnType<F>>,
    hook: F,
  ): (...args: Parameters<F>) => Promise<Awaited<ReturnType<F>>>;
  /** A hook OpenCode wants synchronous (a transform, a render, a listener): answers `neutral` when the hook throws. */
  sync<F extends AnyFunction>(name: string, neutral: ReturnType<F>, hook: F): (...args: Parameters<F>) => ReturnType<F>;
}

/** Guards for hooks that log to `log`; each hook's first failure only. */
export function hookGuards(log: Pick<Logger, "error">): HookGuards {
  const said = new Set<string>();
  const failed = <T>(name: string, neutral: T, error: unknown, args: readonly unknown[]): T => {
    if (isRefusal(error)) throw error;
    if (said.has(name)) return neutral;
    said.add(name);
    const sessionID = args.map(sessionNamedBy).find((found) => found !== undefined);
    log.error(
      `Handling ${name}${sessionID ? ` for session ${sessionID}` : ""} failed: ${errorText(error)}. The hook did nothing; said once: later failures of ${name} are not logged`,
      { hook: name, sessionID, error: errorText(error) },
    );
    return neutral;
  };
  return {
    async:
      <F extends AnyFunction>(name: string, neutral: Awaited<ReturnType<F>>, hook: F) =>
      async (...args: Parameters<F>): Promise<Awaited<ReturnType<F>>> => {
        try {
          return (await (hook(...args) as Promise<Awaited<ReturnType<F>>>)) as Awaited<ReturnType<F>>;
        } catch (error) {
          return failed(name, neutral, error, args);
        }
      },
    sync:
      (name, neutral, hook) =>
      (...args) => {
        try {
          return hook(...args) as ReturnType<typeof hook>;
        } catch (error) {
          return failed(name, neutral, error, args);
        }
      },
  };
}

/** The session a hook's argument names, for the log: both generations give it as `sessionID` (a tool's, in its context). */
function sessionNamedBy(input: unknown): string | undefined {
  const sessionID = (input as { sessionID?: unknown } | null | undefined)?.sessionID;
  return typeof sessionID === "string" ? sessionID : undefined;
}

/** `value`, when it is a non-empty string; else the hook's input is not what OpenCode promises, and the hook fails before the engine hears of it. */
export function required(value: unknown, what: string): string {
  if (typeof value !== "string" || value === "")
    throw new TypeError(
      `${what} is ${value === "" ? "empty" : `not a string (${value === null ? "null" : typeof value})`}`,
    );
  return value;
}
