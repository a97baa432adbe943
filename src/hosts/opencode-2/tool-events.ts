/**
 * OpenCode 2's tool hook events, as every revision that has them shapes
 * them, read in one place. Pure.
 *
 * - 2.0.26 (`packages/plugin/src/promise/tool.ts`, `packages/core/src/tool.ts`
 *   `executeTool` @1066927): the call is `id`; `execute.after` says
 *   `status: "completed" | "error"` and its `result` is `{ output?, content,
 *   metadata? }`, `content` already an array of text and file items.
 * - The July 2026 trunk (`packages/core/src/tool/hooks.ts`,
 *   `packages/core/src/tool/registry.ts` `settleTool` @44b6938b2ad2): the call
 *   is `callID`; `execute.after` has no `status`; its `result` is
 *   `{ type: "json" | "text" | "content" | "error", value }`, with
 *   `output: { structured, content }` beside it when the call succeeded, and
 *   the model reads `output` when there is one
 *   (`packages/core/src/session/runner/publish-llm-event.ts` `settledOutput`).
 * - Before 2026-07-15 (`0a5530d0b`): `toolCallID` and `assistantMessageID`.
 */

/** A tool call as a hook names it. */
interface ToolCallSeen {
  readonly tool: unknown;
  readonly sessionID: unknown;
  readonly callID?: string;
  readonly input: unknown;
}

/** How a finished call ended, and the text it gave the model. */
type ToolOutcome = { readonly status: "completed"; readonly text: string } | { readonly status: "failed" };

type Event = Record<string, unknown> | null | undefined;

/** The call an `execute.before` or `execute.after` event is about. */
export function toolCallOf(event: unknown): ToolCallSeen {
  const record = event as Event;
  const callID = [record?.id, record?.callID, record?.toolCallID].find(
    (value): value is string => typeof value === "string" && value !== "",
  );
  return {
    tool: record?.tool,
    sessionID: record?.sessionID,
    input: record?.input,
    ...(callID === undefined ? {} : { callID }),
  };
}

/**
 * How the call ended: a `status` when the event has one; else a result of
 * type `error` failed and any other finished; an event with neither status
 * nor result says nothing it can be read by, and counts as failed.
 */
export function toolOutcomeOf(event: unknown): ToolOutcome {
  const record = event as Event;
  const status = record?.status;
  const result = record?.result as Event;
  if (status === "error" || status === "failed") return { status: "failed" };
  if (status === undefined && (!isRecord(result) || result.type === "error")) return { status: "failed" };
  if (status !== undefined && status !== "completed") return { status: "failed" };
  return { status: "completed", text: outcomeText(result, record?.output as Event) };
}

/**
 * The text the model reads of a finished call: the trunk's `output` when
 * there is one; else 2.0.26's result (its `content`, or its `output` when the
 * content is empty); else the trunk's `result` value.
 */
function outcomeText(result: Event, output: Event): string {
  if (isRecord(output) && ("content" in output || "structured" in output))
    return contentText(output.content) ?? valueText(output.structured);
  if (isRecord(result) && ("content" in result || "output" in result) && !("type" in result && "value" in result))
    return contentText(result.content) ?? valueText(result.output);
  if (isRecord(result) && result.type === "content") return contentText(result.value) ?? "";
  return isRecord(result) ? valueText(result.value) : "";
}

/** Text items of a content list (a string is one), joined; undefined when it holds no text. */
function contentText(content: unknown): string | undefined {
  if (typeof content === "string") return content === "" ? undefined : content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.flatMap((item) =>
    isRecord(item) && item.type === "text" && typeof item.text === "string" ? [item.text] : [],
  );
  return texts.length === 0 ? undefined : texts.join("\n");
}

/**
 * A structured value as text: a string as it is; the trunk's read of a text
 * file (`{ type: "text-page", content }`, `packages/core/src/tool/read-filesystem.ts`)
 * as its text, so content conditions see the file's lines rather than JSON;
 * anything else as JSON.
 */
function valueText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (isRecord(value) && typeof value.content === "string" && (value.type === "text-page" || value.type === undefined))
    return value.content;
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
