import { describe, expect, test } from "vitest";
import { decodeRuleText } from "../../src/rule/decode.js";
import { utf8 } from "../support/rules.js";

describe("decodeRuleText", () => {
  test("plain UTF-8 text is returned as is", () => {
    expect(decodeRuleText(utf8("Use tabs.\nNever spaces. é ✓"))).toEqual({
      ok: true,
      text: "Use tabs.\nNever spaces. é ✓",
    });
  });

  test("a leading UTF-8 BOM is dropped", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("---\nglobs: a\n---\nbody")]);
    expect(decodeRuleText(bytes)).toEqual({ ok: true, text: "---\nglobs: a\n---\nbody" });
  });

  test("CRLF and lone CR line endings become LF", () => {
    expect(decodeRuleText(utf8("a\r\nb\rc\n\r\nd"))).toEqual({ ok: true, text: "a\nb\nc\n\nd" });
  });

  test("NUL bytes mark a binary file", () => {
    expect(decodeRuleText(new Uint8Array([0x68, 0x00, 0x69]))).toEqual({
      ok: false,
      reason: "it is a binary file (contains NUL bytes)",
    });
  });

  test("invalid UTF-8 is refused rather than decoded to mojibake", () => {
    expect(decodeRuleText(new Uint8Array([0x61, 0xff, 0xfe, 0x62]))).toEqual({
      ok: false,
      reason: "it is not valid UTF-8 text",
    });
    // A truncated multi-byte sequence.
    expect(decodeRuleText(new Uint8Array([0x61, 0xe2, 0x82]))).toEqual({
      ok: false,
      reason: "it is not valid UTF-8 text",
    });
  });

  test("empty input decodes to empty text", () => {
    expect(decodeRuleText(new Uint8Array())).toEqual({ ok: true, text: "" });
  });
});
