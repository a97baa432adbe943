/** OpenCode 2's values in the engine's terms. Pure. */
import { attachedPath } from "../opencode/attachments.js";

/** The text a tool result gives the model: its content, or its output when the content is empty. */
export function resultText(content: unknown, output: unknown): string {
  if (typeof content === "string" && content !== "") return content;
  if (Array.isArray(content) && content.length > 0) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("\n");
  return output === undefined ? "" : typeof output === "string" ? output : JSON.stringify(output);
}

/** A prompt's attached file, under whichever key OpenCode 2 gives it. */
export function attachedFile(file: { uri?: string; url?: string; path?: string }): string[] {
  return attachedPath({ path: file.path, url: file.uri ?? file.url });
}
