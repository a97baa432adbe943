/** OpenCode 2's values in the engine's terms. Pure. */
import type { ModelRef } from "../../select/scope.js";

/** The session an event names, for the log; none when the event is not what OpenCode promises. */
export function sessionOf(event: unknown): string | undefined {
  const sessionID = (event as { sessionID?: unknown } | null | undefined)?.sessionID;
  return typeof sessionID === "string" ? sessionID : undefined;
}

/** The text a tool result gives the model: its content, or its output when the content is empty. */
export function resultText(content: unknown, output: unknown): string {
  if (typeof content === "string" && content !== "") return content;
  if (Array.isArray(content) && content.length > 0) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("\n");
  return output === undefined ? "" : typeof output === "string" ? output : JSON.stringify(output);
}

/** A prompt's attached file: a path or a `file://` URL, under whichever key OpenCode gives it. */
export function attachedFile(file: { uri?: string; url?: string; path?: string }): string[] {
  const value = file.path ?? file.uri ?? file.url;
  return typeof value === "string" && (file.path !== undefined || value.startsWith("file://")) ? [value] : [];
}

/** OpenCode 2 names a model `{ providerID, id }`; the engine, `{ providerID, modelID }`. */
export function modelRef(model: { providerID: string; id: string } | undefined): ModelRef | undefined {
  return model ? { providerID: model.providerID, modelID: model.id } : undefined;
}
