/**
 * Messages as OpenCode 1 hands them to the plugin's hooks and keeps them in a
 * session's history (which the fake server answers, fake-opencode.ts): a
 * user's message, and a compaction's message with the summary answering it.
 */

/** A message as the history holds it. */
export type StoredMessage = { info: Record<string, unknown>; parts: Array<Record<string, unknown>> };

/** A user's message as `chat.message` gets it: working as `build` on model `p/m` unless told otherwise. */
export function userMessage(
  sessionID: string,
  id: string,
  more: { created?: number; agent?: string; model?: { providerID: string; modelID: string } } = {},
) {
  return {
    id,
    sessionID,
    role: "user" as const,
    time: { created: more.created ?? 1 },
    agent: more.agent ?? "build",
    model: more.model ?? { providerID: "p", modelID: "m" },
  };
}

/** The user message a compaction is stored as, holding its `compaction` part; `info` adds to it (the agent…). */
export const compactionMessage = (id: string, created: number, info: Record<string, unknown> = {}): StoredMessage => ({
  info: { id, role: "user", time: { created }, ...info },
  parts: [{ type: "compaction" }],
});

/** The summary answering compaction `parentID`: finished (its text `summary`), or failed with `error` (no text). */
export function summaryMessage(
  id: string,
  parentID: string,
  created: number,
  end: { finish: "stop" } | { error: { name: string } } = { finish: "stop" },
): StoredMessage {
  return {
    info: { id, role: "assistant", time: { created }, summary: true, parentID, ...end },
    parts: "finish" in end ? [{ type: "text", text: "summary" }] : [],
  };
}
