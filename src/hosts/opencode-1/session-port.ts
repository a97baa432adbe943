/**
 * OpenCode 1's side of the session port: a rules message is a silent prompt
 * (`noReply: true`) holding one synthetic text part (hidden in the terminal
 * UI, read by the model) whose metadata carries the plugin's marker, so the
 * plugin recognises its own message in `chat.message` and in the history.
 */
import type { PluginInput } from "@opencode-ai/plugin";
import type { RulesPrompt, SessionPort } from "../../engine/contract.js";
import { MARKER_KEY } from "../../session/marker.js";
import { compactionUnderway, currentWindow, lastUserChoice, rulesIn, type HistoryMessage } from "./history.js";

export type OpencodeClient = PluginInput["client"];

export function sessionPort(client: OpencodeClient): SessionPort {
  return {
    async sendRules(prompt: RulesPrompt, signal: AbortSignal) {
      const result = await client.session.prompt({
        signal,
        path: { id: prompt.sessionID },
        body: {
          noReply: true,
          ...(prompt.agent ? { agent: prompt.agent } : {}),
          ...(prompt.model ? { model: prompt.model } : {}),
          parts: [{ type: "text", text: prompt.text, synthetic: true, metadata: { [MARKER_KEY]: prompt.marker } }],
        },
      });
      if (result.error !== undefined || !result.data) {
        const status = result.response?.status;
        throw new Error(
          `OpenCode answered ${status ?? "with an error"} to the rules prompt: ${describeError(result.error)}`,
        );
      }
      const info = (result.data as { info?: { time?: { created?: number } } }).info;
      return { created: info?.time?.created ?? Date.now() };
    },
    async readWindow(sessionID, scope, signal) {
      const result = await client.session.messages({ path: { id: sessionID }, signal });
      if (result.error !== undefined || !Array.isArray(result.data))
        throw new Error(`reading the history of session ${sessionID} failed (${result.response?.status})`);
      const history = result.data as unknown as HistoryMessage[];
      const window = currentWindow(history);
      // Right after a compaction the history may not show it yet: then no window is known to hold rules.
      const rules = scope === "since-compaction" && window.start === undefined ? [] : rulesIn(window.messages);
      return {
        rules,
        choice: lastUserChoice(history),
        windowStart: window.start,
        compactionUnderway: compactionUnderway(history),
        movedOn: window.movedOn,
      };
    },
  };
}

function describeError(error: unknown): string {
  if (error === undefined) return "no message in the answer";
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error).slice(0, 500);
  } catch {
    return String(error);
  }
}
