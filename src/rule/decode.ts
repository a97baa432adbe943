/**
 * Bytes of a rule file → text. Rule files are Markdown; anything that is not
 * UTF-8 text is refused rather than guessed at, so the model never reads mojibake.
 */

type DecodedText = { ok: true; text: string } | { ok: false; reason: string };

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

export function decodeRuleText(bytes: Uint8Array): DecodedText {
  if (bytes.includes(0)) return { ok: false, reason: "it is a binary file (contains NUL bytes)" };
  let text: string;
  try {
    // ignoreBOM: false makes the decoder drop a leading UTF-8 BOM.
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: "it is not valid UTF-8 text" };
  }
  // CRLF (Windows) and lone CR (old Mac) both become LF, so line numbers and delimiters agree.
  return { ok: true, text: text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text };
}
