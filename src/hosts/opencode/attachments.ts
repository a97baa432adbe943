/**
 * The file a prompt attaches, as both OpenCode generations give it: a path
 * when OpenCode knows one, else a `file://` URL. Anything else (an image
 * pasted in, an `https:` URL) names no file of the session.
 */
export function attachedPath(file: { path?: unknown; url?: unknown }): string[] {
  if (typeof file.path === "string") return [file.path];
  return typeof file.url === "string" && file.url.startsWith("file://") ? [file.url] : [];
}
