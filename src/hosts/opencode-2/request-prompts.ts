/**
 * The user's input a model request ends with, read from the request itself.
 * Pure.
 *
 * The `prompt` hook sees a user's message before it is admitted; a host that
 * never calls it (the July 2026 trunk registers it and never fires it:
 * `packages/core/src/plugin/hooks.ts` keeps callbacks by name, and nothing
 * triggers `session.prompt` @44b6938b2ad2), or input that came another way,
 * leaves the request as the only place its words are seen. There a user's
 * message is a `user` message with its history id, its words in text parts
 * and each attached file a text part carrying `metadata.attachment.source`
 * (`packages/core/src/session/runner/to-llm-message.ts` @44b6938b2ad2).
 */
import type { LlmMessage } from "./api-llm.js";
import { attachedFile } from "./shapes.js";

/** A user's message as a request carries it. */
export interface RequestPrompt {
  readonly messageID: string;
  readonly texts: string[];
  readonly files: string[];
}

/** How a compaction checkpoint begins: a summary is no one's words. */
const CHECKPOINT = "<conversation-checkpoint>";

/**
 * Messages read from a request's end at most: a few queued or steered
 * messages are new at once; past this the oldest are not read (each one read
 * is an engine call the request waits for).
 */
export const MAX_ENDING_PROMPTS = 32;

/**
 * The user messages the request ends with (new since the last request: the
 * rest of the request is what came before), oldest first, the newest
 * `MAX_ENDING_PROMPTS` at most. Messages without an id are left out:
 * OpenCode's own inserted input and this plugin's rules.
 */
export function endingPrompts(messages: readonly LlmMessage[]): RequestPrompt[] {
  const ending: RequestPrompt[] = [];
  for (let i = messages.length - 1; i >= Math.max(0, messages.length - MAX_ENDING_PROMPTS); i--) {
    const message = messages[i] as LlmMessage;
    if (message.role !== "user" || typeof message.id !== "string") break;
    const prompt = promptOf(message, message.id);
    if (prompt) ending.unshift(prompt);
  }
  return ending;
}

function promptOf(message: LlmMessage, messageID: string): RequestPrompt | undefined {
  const parts = Array.isArray(message.content) ? message.content : [];
  const texts: string[] = [];
  const files: string[] = [];
  for (const part of parts) {
    if (part?.type !== "text" || typeof part.text !== "string") continue;
    const source = (
      (part as { metadata?: unknown }).metadata as
        | { attachment?: { source?: { type?: unknown; uri?: unknown; path?: unknown } } }
        | undefined
    )?.attachment?.source;
    if (source !== undefined) {
      files.push(
        ...attachedFile({
          uri: typeof source.uri === "string" ? source.uri : undefined,
          path: typeof source.path === "string" ? source.path : undefined,
        }),
      );
      continue;
    }
    if (part.text.trimStart().startsWith(CHECKPOINT)) return undefined;
    texts.push(part.text);
  }
  return texts.length > 0 || files.length > 0 ? { messageID, texts, files } : undefined;
}
