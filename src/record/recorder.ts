/**
 * The record's ear on the engine: each note of a session's steps becomes
 * the record's lines (`from-note.ts`), queued on the sink, which writes them
 * later (`store.ts`). Nothing here waits for the disk, and a failure here is
 * logged once and never reaches the session.
 */
import type { Logger } from "../log.js";
import type { Note, RuleSet, SessionState } from "../session/session.js";
import { recordedFor } from "./from-note.js";
import type { RecordSink } from "./store.js";

interface RecorderParts {
  sink: RecordSink;
  /** The project's root folder. */
  project: string;
  /** The rules in effect now. */
  rules: () => RuleSet;
  log: Logger;
  now?: () => number;
}

export function noteRecorder(parts: RecorderParts): (sessionID: string, note: Note, state: SessionState) => void {
  const now = parts.now ?? Date.now;
  let failed = false;
  return (sessionID, note, state) => {
    try {
      const context = { project: parts.project, sessionID, state, rules: parts.rules, now: now() };
      for (const event of recordedFor(note, context)) parts.sink.add(event);
    } catch (error) {
      if (failed) return;
      failed = true;
      parts.log.error(
        `The record of what the rules did missed a ${note.kind} note of session ${sessionID} (${error instanceof Error ? error.message : String(error)}); the rules work as before`,
        { sessionID },
      );
    }
  };
}
