/** How the session counts its tool calls for the record: numbered each, noted at a turn's end and every hundred. */
import { describe, expect, test } from "vitest";
import { callCounted, callsNoted, NOTE_EVERY } from "../../src/session/call-count.js";
import { NEW_SESSION, type Note, type SessionState } from "../../src/session/session.js";

describe("the count of tool calls", () => {
  test("each call gets the next number; the count is noted every NOTE_EVERY calls, not at each", () => {
    let state: SessionState = NEW_SESSION;
    const notes: Note[] = [];
    const numbers: number[] = [];
    for (let i = 0; i < NOTE_EVERY * 2 + 5; i++) {
      const counted = callCounted(state);
      state = counted.state;
      numbers.push(counted.number);
      notes.push(...counted.notes);
    }
    expect(numbers.slice(0, 3)).toEqual([1, 2, 3]);
    expect(numbers.at(-1)).toBe(NOTE_EVERY * 2 + 5);
    expect(notes).toEqual([
      { kind: "tool-calls", calls: NOTE_EVERY },
      { kind: "tool-calls", calls: NOTE_EVERY * 2 },
    ]);
    // The turn's end notes the calls since, once.
    const ended = callsNoted(state);
    expect(ended.notes).toEqual([{ kind: "tool-calls", calls: NOTE_EVERY * 2 + 5 }]);
    expect(callsNoted(ended.state).notes).toEqual([]);
  });

  test("a turn without calls notes nothing", () => {
    expect(callsNoted(NEW_SESSION).notes).toEqual([]);
  });
});
