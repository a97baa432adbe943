/** Record lines for tests of the record's writer and file: the count of a session's calls, numbered so order shows. */
import type { RecordEvent } from "../../src/record/event.js";

export const RECORD_PROJECT = "/work/my-app";

export const countLine = (call: number): RecordEvent => ({
  v: 1,
  at: 1_700_000_000_000 + call,
  kind: "tool-calls",
  project: RECORD_PROJECT,
  call,
});
