/** The log's words for what the session model notes (src/engine/notes.ts), those the other tests do not read. */
import { NEW_SESSION } from "../../src/session/session.js";
import { describe, expect, test } from "vitest";
import { noteWriter } from "../../src/engine/notes.js";
import type { Logger } from "../../src/log.js";
import type { Note } from "../../src/session/session.js";

function written(note: Note, labels = {}) {
  const lines: string[] = [];
  const line = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  const log: Logger = {
    debugEnabled: true,
    debug: line("debug"),
    info: line("info"),
    warn: line("warn"),
    error: line("error"),
    flush: async () => {},
  };
  noteWriter({ log, labels, checkMs: 1000 })("ses_1", note, NEW_SESSION);
  return lines;
}

describe("the words each note is logged in", () => {
  test.each<[string, Note, string]>([
    [
      "a try whose history cannot be read with an earlier prompt pending",
      {
        kind: "delivery-failed",
        trigger: "compaction",
        attempt: 2,
        final: false,
        failure: { kind: "history-unreadable-with-pending" },
      },
      "error: Rules delivery to session ses_1 on session.compacted failed (try 2); retrying: an earlier rules prompt may have been stored, and the history that would tell cannot be read; trying again later",
    ],
    [
      "an attachment that cannot be read",
      { kind: "unreadable-part", error: "bad URL" },
      "warn: A part of a message in session ses_1 could not be read (bad URL); the rest of the message was",
    ],
    [
      "whether rules were weakened cannot be told",
      { kind: "weakening-unknown", error: "boom" },
      "error: Could not tell whether a call in session ses_1 weakens a rule that forbids: boom",
    ],
    [
      "a text not all looked at for content conditions",
      { kind: "content-unscanned", tool: "read" },
      "warn: The text read brought in was not all looked at for rules with content conditions (over 250 ms); rules it did not reach were not activated by it",
    ],
    [
      "a check that ran out of time, naming no rule",
      { kind: "check-incomplete", tool: "write", unreached: [] },
      "warn: Could not check all of a write call in session ses_1 against the rules that forbid within 1000 ms; what was not checked was let through. Not reached: none named",
    ],
  ])("%s", (_name, note, line) => {
    expect(written(note, { compaction: "session.compacted" })).toEqual([line]);
  });
});
