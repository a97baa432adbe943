/** OpenCode 2's values in the engine's terms. Pure. */
import { attachedPath } from "../opencode/attachments.js";

/** A prompt's attached file, under whichever key OpenCode 2 gives it. */
export function attachedFile(file: { uri?: string; url?: string; path?: string }): string[] {
  return attachedPath({ path: file.path, url: file.uri ?? file.url });
}
