/**
 * The prompts OpenCode 2 admitted and no request carried yet. Its `prompt`
 * hook names neither agent nor model; the first request that carries the
 * prompt's message names both, so a prompt's rules are composed there.
 * A user's message no `prompt` hook saw is read from the request that ends
 * with it (`request-prompts.ts`), once: message ids ascend, so the newest one
 * taken per session tells what is new.
 */
import type { LlmMessage } from "./api-llm.js";
import type { RequestPrompt } from "./request-prompts.js";

/** A prompt as the `prompt` hook saw it, until a request carries its message. */
interface WaitingPrompt {
  messageID: string;
  texts: string[];
  files: string[];
}

/** Prompts one session may have waiting: a few queued or steered messages; past this the oldest goes (its rules come with the next). */
const MAX_WAITING = 32;

/** The prompts admitted and not yet in a request, by session. */
export function promptsInArrival() {
  const waiting = new Map<string, WaitingPrompt[]>();
  /** The newest message id taken per session, either way. */
  const newest = new Map<string, string>();
  const taken = (sessionID: string, messageID: string) => {
    const last = newest.get(sessionID);
    if (last === undefined || messageID > last) newest.set(sessionID, messageID);
  };
  return {
    add(sessionID: string, prompt: WaitingPrompt) {
      const list = [...(waiting.get(sessionID) ?? []), prompt];
      waiting.set(sessionID, list.slice(-MAX_WAITING));
    },
    /**
     * The prompts whose message this request carries, in order. The others
     * wait: a queued message reaches a request only when the turn before is
     * over, whatever came after it (a withdrawn one waits until it is the
     * oldest of too many).
     */
    takeArrived(sessionID: string, messages: readonly LlmMessage[]): WaitingPrompt[] {
      const list = waiting.get(sessionID);
      if (!list) return [];
      const ids = new Set(messages.flatMap((message) => (message.id === undefined ? [] : [message.id])));
      const arrived = list.filter((prompt) => ids.has(prompt.messageID));
      const still = list.filter((prompt) => !ids.has(prompt.messageID));
      if (still.length > 0) waiting.set(sessionID, still);
      else waiting.delete(sessionID);
      for (const prompt of arrived) taken(sessionID, prompt.messageID);
      return arrived;
    },
    /** Of the user messages a request ends with, those newer than any taken and not waiting for their request: no `prompt` hook saw them. */
    takeUnseen(sessionID: string, ending: readonly RequestPrompt[]): RequestPrompt[] {
      const last = newest.get(sessionID);
      const awaited = new Set((waiting.get(sessionID) ?? []).map((prompt) => prompt.messageID));
      const unseen = ending.filter(
        (prompt) => (last === undefined || prompt.messageID > last) && !awaited.has(prompt.messageID),
      );
      for (const prompt of unseen) taken(sessionID, prompt.messageID);
      return unseen;
    },
    forget(sessionID?: string) {
      if (sessionID === undefined) {
        waiting.clear();
        newest.clear();
      } else {
        waiting.delete(sessionID);
        newest.delete(sessionID);
      }
    },
  };
}
