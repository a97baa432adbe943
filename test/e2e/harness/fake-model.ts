/**
 * What the fake model of the end-to-end tests (fake-model-server.ts, an
 * OpenAI-compatible chat-completions server OpenCode talks to through a
 * custom provider) records and answers: the requests as OpenCode sends them,
 * the replies tests script; and the readers tests use on a recorded request
 * (its system text, its whole text, its last user message, its tool results;
 * whether OpenCode sent it for a title or a compaction summary on its own).
 */
import type http from "node:http";

export interface ToolCall {
  /** Tool name as OpenCode exposes it: "read", "write", "edit", "bash", "task", ... */
  name: string;
  /** Tool arguments; objects are JSON-encoded, strings are sent verbatim. */
  arguments: Record<string, unknown> | string;
  /** Tool call id; generated when omitted. */
  id?: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  /** Reported as prompt_tokens_details.cached_tokens. */
  cached_tokens?: number;
}

export interface ReplyObject {
  text?: string;
  /** Sent as `delta.reasoning_content` before the text. */
  reasoning?: string;
  toolCalls?: ToolCall[];
  /** Overrides the default small usage; e.g. a huge prompt_tokens makes OpenCode auto-compact. */
  usage?: Partial<Usage>;
  /** Default: "tool_calls" when toolCalls are present, else "stop". */
  finishReason?: string;
  /** Wait this long before answering (ms). */
  delayMs?: number;
  /** Answer with an HTTP error instead of a completion. */
  error?: { status: number; message: string };
}

/** A reply: plain text, or a structured reply (text and/or tool calls, usage, ...). */
export type Reply = string | ReplyObject;

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  [key: string]: unknown;
}

export interface ChatRequestBody {
  model?: string;
  messages: ChatMessage[];
  stream?: boolean;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  [key: string]: unknown;
}

export interface RecordedRequest {
  /** 1-based sequence number. */
  seq: number;
  /** Date.now() at arrival. */
  time: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** OpenCode session that made the request (its `x-session-id` header); subagents have their own. */
  sessionID?: string;
  body: ChatRequestBody;
  /** What the fake model answered. */
  reply?: ReplyObject;
}

/** Return a Reply to answer, or undefined to fall through to title/summary/queue/default. */
export type Responder = (req: RecordedRequest) => Reply | undefined | Promise<Reply | undefined>;

export interface FakeModelOptions {
  defaultReply?: Reply;
  titleReply?: Reply;
  summaryReply?: Reply;
  /** Model ids listed by GET /v1/models. */
  models?: string[];
}

/** Text of one message's content (string or array of parts). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p) =>
        typeof p === "string"
          ? p
          : p && typeof p === "object" && "text" in p
            ? String((p as { text: unknown }).text)
            : "",
      )
      .join("\n");
  }
  return "";
}

/** The text parts of one message's content, in order (a plain string is one part). */
export function contentParts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((p) =>
    typeof p === "string"
      ? [p]
      : p && typeof p === "object" && "text" in p
        ? [String((p as { text: unknown }).text)]
        : [],
  );
}

/**
 * The reminders OpenCode 1.18 adds on its own to the latest user message of a
 * request, never stored (so the next request has that message without them):
 * plan mode's, on every plan request, and the one on every build request once
 * the session has worked as plan.
 */
const OPENCODE_REMINDERS = [
  "<system-reminder>\n# Plan Mode - System Reminder",
  "<system-reminder>\nYour operational mode has changed from plan to build.",
];

/** Whether a text part is one of OpenCode's own plan or build-switch reminders. */
export function isOpencodeReminder(text: string): boolean {
  return OPENCODE_REMINDERS.some((start) => text.startsWith(start));
}

function bodyOf(r: RecordedRequest | ChatRequestBody): ChatRequestBody {
  return "body" in r && r.body && typeof r.body === "object" && "messages" in (r.body as object)
    ? (r as RecordedRequest).body
    : (r as ChatRequestBody);
}

/** All system-message text of a request. */
export function systemText(r: RecordedRequest | ChatRequestBody): string {
  return (bodyOf(r).messages ?? [])
    .filter((m) => m.role === "system" || m.role === "developer")
    .map((m) => contentText(m.content))
    .join("\n");
}

/** All text of a request (every message, including tool results and tool-call arguments). */
export function requestText(r: RecordedRequest | ChatRequestBody): string {
  return (bodyOf(r).messages ?? [])
    .map((m) =>
      [contentText(m.content), ...(m.tool_calls ?? []).map((t) => `${t.function.name} ${t.function.arguments}`)].join(
        "\n",
      ),
    )
    .join("\n");
}

/** Text of the last user message of a request. */
export function lastUserText(r: RecordedRequest | ChatRequestBody): string {
  const users = (bodyOf(r).messages ?? []).filter((m) => m.role === "user");
  return contentText(users[users.length - 1]?.content);
}

/** Tool messages (role "tool") of a request: results of earlier tool calls. */
export function toolResults(r: RecordedRequest | ChatRequestBody): Array<{ tool_call_id?: string; text: string }> {
  return (bodyOf(r).messages ?? [])
    .filter((m) => m.role === "tool")
    .map((m) => ({ tool_call_id: m.tool_call_id, text: contentText(m.content) }));
}

/** OpenCode's session-title request (small model, "You are a title generator"). */
export function isTitleRequest(r: RecordedRequest | ChatRequestBody): boolean {
  const sys = systemText(r);
  if (/You are a title generator/i.test(sys)) return true;
  return (bodyOf(r).messages ?? []).some(
    (m) => m.role === "user" && /^Generate a title for this conversation/i.test(contentText(m.content).trim()),
  );
}

/** OpenCode's compaction-summary request ("You are a context summarization agent"). */
export function isSummaryRequest(r: RecordedRequest | ChatRequestBody): boolean {
  return /You are a context summarization agent/i.test(systemText(r));
}

/** A main agent turn: neither title nor summary. */
export function isMainRequest(r: RecordedRequest | ChatRequestBody): boolean {
  return !isTitleRequest(r) && !isSummaryRequest(r);
}
