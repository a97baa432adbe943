/**
 * How rules reach a session: one silent prompt (`noReply: true`) holding one
 * synthetic text part. Synthetic hides it in the terminal UI; the model still
 * reads it. The part carries a marker in its metadata so the plugin can
 * recognise its own message (in `chat.message`, and in a session's history).
 */
import type { PluginInput } from "@opencode-ai/plugin";

export type OpencodeClient = PluginInput["client"];

/** Key of the marker in a part's metadata. */
export const MARKER_KEY = "opencode-rulebook";

export interface RulesMarker {
  kind: "rules";
  /** Names of the rules the part carries. */
  rules: string[];
  trigger: string;
  /** One id per delivery attempt: after a timeout, the history shows whether the attempt was stored after all. */
  delivery?: string;
}

export interface RulesPrompt {
  sessionID: string;
  text: string;
  marker: RulesMarker;
  /** The session's own agent and model: a prompt without them can switch the session's agent. */
  agent?: string;
  model?: { providerID: string; modelID: string };
}

export interface StoredMessage {
  id: string;
  /** When OpenCode stored it: user messages sort after it must be created later. */
  created: number;
}

/** A rules prompt is stored in milliseconds; one that hangs this long is given up (and looked for in the history before any retry). */
export const PROMPT_TIMEOUT_MS = 10_000;

/**
 * Sends the rules; throws (with the server's answer) when they were not
 * stored, or when `signal` aborts. The caller owns the timeout: a signal from
 * `AbortSignal.timeout()` alone can be collected before it fires.
 */
export async function sendRulesPrompt(client: OpencodeClient, prompt: RulesPrompt, signal: AbortSignal): Promise<StoredMessage> {
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
    throw new Error(`OpenCode answered ${status ?? "with an error"} to the rules prompt: ${describeError(result.error)}`);
  }
  const info = (result.data as { info?: { id?: string; time?: { created?: number } } }).info;
  return { id: info?.id ?? "", created: info?.time?.created ?? Date.now() };
}

/** The plugin's marker on a part, if the part is one of the plugin's. */
export function markerOf(part: { metadata?: Record<string, unknown> } | undefined): RulesMarker | undefined {
  const marker = part?.metadata?.[MARKER_KEY];
  return marker && typeof marker === "object" && (marker as RulesMarker).kind === "rules" ? (marker as RulesMarker) : undefined;
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
