/** Who hears the notes of a session's steps: the log always, the record of what the rules did when one is kept. */
import { noteRecorder } from "../record/recorder.js";
import type { NoteWriter } from "./notes.js";

export function noteHearers(logNote: NoteWriter, record?: Parameters<typeof noteRecorder>[0]): NoteWriter {
  if (!record) return logNote;
  const recordNote = noteRecorder(record);
  return (sessionID, note, state) => {
    logNote(sessionID, note, state);
    recordNote(sessionID, note, state);
  };
}
