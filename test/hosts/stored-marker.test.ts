/**
 * Markers stored by earlier versions (issue 27): their triggers named
 * OpenCode 1's hooks; read back from a history or OpenCode 2's storage, they
 * read with the host-neutral words used now.
 */
import { describe, expect, test } from "vitest";
import { storedMarker as asMarker } from "../../src/hosts/opencode/stored-marker.js";
import { markerOf } from "../../src/hosts/opencode-1/parts.js";
import { MARKER_KEY } from "../../src/session/marker.js";

describe("markers of earlier versions", () => {
  test("markers stored by earlier versions, whose triggers named OpenCode 1's hooks, read with the words used now; the rest kept as stored", () => {
    const earlier = (trigger: string) =>
      asMarker({ kind: "rules", rules: ["a"], trigger, delivery: "d1", why: [{ reason: { kind: "always" } }] });
    expect(earlier("session.created")).toEqual({
      kind: "rules",
      rules: ["a"],
      trigger: "new-session",
      delivery: "d1",
      why: [{ reason: { kind: "always" } }],
    });
    expect(earlier("session.compacted")?.trigger).toBe("compaction");
    expect(earlier("chat.message")?.trigger).toBe("first-message");
    expect(earlier("prompt")?.trigger).toBe("message");
    // A tool's name, and the rule tool's answer, were stored as they are read now.
    expect(earlier("read")?.trigger).toBe("read");
    expect(earlier("rule")?.trigger).toBe("rule");
    // A damaged field of an earlier marker is left out as any other's.
    expect(asMarker({ kind: "rules", rules: ["a"], trigger: "session.created", paused: 5 })).toEqual({
      kind: "rules",
      rules: ["a"],
      trigger: "new-session",
    });
  });

  test("OpenCode 1's history: a part stored by an earlier version reads with today's words", () => {
    expect(
      markerOf({
        metadata: { [MARKER_KEY]: { kind: "rules", rules: ["style"], trigger: "session.compacted", delivery: "d7" } },
      }),
    ).toEqual({
      kind: "rules",
      rules: ["style"],
      trigger: "compaction",
      delivery: "d7",
    });
  });
});
