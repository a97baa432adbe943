/**
 * What a provider's prompt cache sees of consecutive model requests (issue 17).
 * A request is cached by its prefix: the tools offered, the system prompt,
 * then the messages in order. A request that keeps the earlier one's tools
 * and system prompt byte for byte and begins with exactly its messages reuses
 * all of it; anything rewritten earlier in the conversation costs everything
 * after it. Pure: request bodies in, findings out.
 */
import { isOpencodeReminder, type ChatMessage, type ChatRequestBody } from "./fake-model.js";

const isSystem = (message: ChatMessage) => message.role === "system" || message.role === "developer";

/** The request as the cache reads it, in order: tools, system prompt, messages (each as its exact JSON). */
function cacheOrder(body: ChatRequestBody): { tools: string; system: string; messages: string[] } {
  const messages = body.messages ?? [];
  return {
    tools: JSON.stringify(body.tools ?? []),
    system: JSON.stringify(messages.filter(isSystem)),
    messages: messages.filter((message) => !isSystem(message)).map((message) => JSON.stringify(message)),
  };
}

/** Where two texts part, with a little of each around it: readable in a failing test. */
function whereTheyPart(before: string, after: string): string {
  let at = 0;
  while (at < before.length && before[at] === after[at]) at++;
  const from = Math.max(0, at - 60);
  const excerpt = (text: string) => JSON.stringify(text.slice(from, at + 100));
  return `at character ${at}: was ${excerpt(before)}, now ${excerpt(after)}`;
}

/**
 * How `later` fails to extend `earlier`, in words, or undefined when it does:
 * the same tools and system prompt, byte for byte, and every earlier message
 * unchanged at its place (new messages only after them).
 */
export function firstDifference(earlier: ChatRequestBody, later: ChatRequestBody): string | undefined {
  const before = cacheOrder(earlier);
  const after = cacheOrder(later);
  if (before.tools !== after.tools) return `the tools changed ${whereTheyPart(before.tools, after.tools)}`;
  if (before.system !== after.system) return `the system prompt changed ${whereTheyPart(before.system, after.system)}`;
  for (let i = 0; i < before.messages.length; i++) {
    const was = before.messages[i] as string;
    const now = after.messages[i];
    if (now === undefined)
      return `message ${i + 1} of ${before.messages.length} is gone (${after.messages.length} messages now)`;
    if (was !== now) return `message ${i + 1} of ${before.messages.length} changed ${whereTheyPart(was, now)}`;
  }
  return undefined;
}

const isReminderPart = (part: unknown): boolean =>
  typeof part === "object" &&
  part !== null &&
  (part as { type?: unknown }).type === "text" &&
  isOpencodeReminder(String((part as { text?: unknown }).text));

/**
 * The request without what OpenCode 1.18 itself changes when a session
 * switches agent, measured in test/e2e/prompt-cache.test.ts: its plan and
 * build-switch reminders (on the latest user message only, never stored) and
 * the `task` tool's description (it lists the subagents the current agent may
 * start: plan may start fewer). A message left with one text part becomes a
 * plain string, as OpenCode's provider sends one.
 */
export function withoutOpencodeSwitchChanges(body: ChatRequestBody): ChatRequestBody {
  const messages = (body.messages ?? []).map((message): ChatMessage => {
    if (message.role !== "user" || !Array.isArray(message.content) || !message.content.some(isReminderPart))
      return message;
    const kept = (message.content as unknown[]).filter((part) => !isReminderPart(part));
    const [lone] = kept as Array<{ type?: unknown; text?: unknown }>;
    return { ...message, content: kept.length === 1 && lone?.type === "text" ? lone.text : kept };
  });
  const tools = body.tools?.map((tool) =>
    tool.function.name === "task" ? { ...tool, function: { ...tool.function, description: undefined } } : tool,
  );
  return { ...body, messages, ...(tools ? { tools } : {}) };
}

/** The request as one text in cache order, for measuring shared prefixes. */
function flat(body: ChatRequestBody): string {
  const { tools, system, messages } = cacheOrder(body);
  return [tools, system, ...messages].join("\n");
}

function commonPrefixLength(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let at = 0;
  while (at < length && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  return at;
}

/**
 * The share of a session's request bytes a prompt cache can reuse: for each
 * request, the part it shares from the start with the request before it (none
 * for the first), over all of them.
 */
export function reusablePrefixShare(requests: readonly ChatRequestBody[]): {
  reusable: number;
  total: number;
  share: number;
} {
  let reusable = 0;
  let total = 0;
  let previous: string | undefined;
  for (const request of requests) {
    const text = flat(request);
    total += text.length;
    if (previous !== undefined) reusable += commonPrefixLength(previous, text);
    previous = text;
  }
  return { reusable, total, share: total === 0 ? 0 : reusable / total };
}
