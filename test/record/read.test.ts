import { mkdir, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RECORD_VERSION, type RecordEvent } from "../../src/record/event.js";
import { recordFiles } from "../../src/record/location.js";
import { parseRecordLines, RECORD_FILE_READ_LIMIT, readRecord } from "../../src/record/read.js";
import { tempDirs } from "../support/temp-folder.js";

const event = (fields: Partial<RecordEvent> = {}): RecordEvent => ({
  v: RECORD_VERSION,
  at: 1_700_000_000_000,
  kind: "delivered",
  project: "/p",
  session: "s1",
  rule: "r",
  ...fields,
});
const lines = (...events: unknown[]) => events.map((value) => `${JSON.stringify(value)}\n`).join("");

describe("parseRecordLines", () => {
  it("reads one event a line, in order, skipping blank lines and carriage returns", () => {
    const text = `${JSON.stringify(event({ rule: "a" }))}\r\n\n  \n${lines(event({ rule: "b", kind: "listed" }))}`;
    const parsed = parseRecordLines(text);
    expect(parsed.events.map((e) => e.rule)).toEqual(["a", "b"]);
    expect(parsed).toMatchObject({ damaged: 0, newer: 0 });
  });

  it("keeps fields it does not know (a later writer's additions of the same version)", () => {
    const parsed = parseRecordLines(lines({ ...event(), extra: [1, 2] }));
    expect(parsed.events).toHaveLength(1);
  });

  it.each([
    ["not JSON", "{not json"],
    ["a line cut short", JSON.stringify(event()).slice(0, 30)],
    ["an array", "[1,2]"],
    ["null", "null"],
    ["a number", "42"],
    ["a string", '"delivered"'],
    ["no version", JSON.stringify({ ...event(), v: undefined })],
    ["version 0", JSON.stringify({ ...event(), v: 0 })],
    ["a version as text", JSON.stringify({ ...event(), v: "1" })],
    ["an unknown kind", JSON.stringify({ ...event(), kind: "exploded" })],
    ["no kind", JSON.stringify({ ...event(), kind: undefined })],
    ["a time as text", JSON.stringify({ ...event(), at: "2026-11-01" })],
    ["a time no date can hold", JSON.stringify({ ...event(), at: 1e300 })],
    ["no project", JSON.stringify({ ...event(), project: undefined })],
    ["a project as a number", JSON.stringify({ ...event(), project: 7 })],
    ["tokens as text", JSON.stringify({ ...event(), tokens: "12" })],
    ["a call as text", JSON.stringify({ ...event(), call: "3" })],
    ["a rule as a number", JSON.stringify({ ...event(), rule: 3 })],
    ["a session as an object", JSON.stringify({ ...event(), session: {} })],
  ])("counts %s as damaged and goes on", (_, line) => {
    const parsed = parseRecordLines(`${line}\n${lines(event({ rule: "after" }))}`);
    expect(parsed.damaged).toBe(1);
    expect(parsed.newer).toBe(0);
    expect(parsed.events.map((e) => e.rule)).toEqual(["after"]);
  });

  it("counts lines of a newer version apart from damaged ones", () => {
    const parsed = parseRecordLines(lines({ ...event(), v: 2, kind: "something-new" }, event(), "x"));
    expect(parsed).toMatchObject({ newer: 1, damaged: 1 });
    expect(parsed.events).toHaveLength(1);
  });

  it("reads an empty text as no events", () => {
    expect(parseRecordLines("")).toEqual({ events: [], damaged: 0, newer: 0 });
  });
});

describe("readRecord", () => {
  const dirs = tempDirs();
  afterEach(() => dirs.cleanup());

  it("reads a project's rotated file, then its current one", async () => {
    const folder = await dirs.make();
    const { rotated, current } = recordFiles(folder, "/work/app");
    await writeFile(current, `${lines(event({ rule: "newer" }))}garbage\n`);
    await writeFile(rotated, lines(event({ rule: "older" })));
    const read = await readRecord(folder, { projectRoot: "/work/app" });
    expect(read.events.map((e) => e.rule)).toEqual(["older", "newer"]);
    expect(read).toMatchObject({ damaged: 1, files: [rotated, current], missing: false, notes: [] });
  });

  it("reads a project with only its current file", async () => {
    const folder = await dirs.make();
    const { current } = recordFiles(folder, "/work/app");
    await writeFile(current, lines(event()));
    const read = await readRecord(folder, { projectRoot: "/work/app" });
    expect(read).toMatchObject({ files: [current], missing: false });
    expect(read.events).toHaveLength(1);
  });

  it("says a project without a file, or without a folder, is missing", async () => {
    const folder = await dirs.make();
    await writeFile(recordFiles(folder, "/work/other").current, lines(event()));
    expect(await readRecord(folder, { projectRoot: "/work/app" })).toMatchObject({ missing: true, files: [] });
    const none = join(folder, "none");
    expect(await readRecord(none, { projectRoot: "/work/app" })).toMatchObject({ missing: true, events: [] });
  });

  it("skips a file over the bound with a note, unread", async () => {
    const folder = await dirs.make();
    const { rotated, current } = recordFiles(folder, "/work/app");
    await writeFile(rotated, "");
    await truncate(rotated, RECORD_FILE_READ_LIMIT + 1); // sparse: no time or disk spent
    await writeFile(current, lines(event()));
    const read = await readRecord(folder, { projectRoot: "/work/app" });
    expect(read.notes).toEqual([
      { kind: "too-big", file: rotated, bytes: RECORD_FILE_READ_LIMIT + 1, limit: RECORD_FILE_READ_LIMIT },
    ]);
    expect(read).toMatchObject({ files: [current], missing: false });
    expect(read.events).toHaveLength(1);
  });

  it("notes a record path that is not a file, and is not missing then", async () => {
    const folder = await dirs.make();
    const { current } = recordFiles(folder, "/work/app");
    await mkdir(current);
    const read = await readRecord(folder, { projectRoot: "/work/app" });
    expect(read).toMatchObject({ missing: false, files: [], notes: [{ kind: "unreadable", file: current }] });
  });

  it("reads every project's files for all, each rotated file before its current one, and nothing else", async () => {
    const folder = await dirs.make();
    const app = recordFiles(folder, "/work/app");
    const lib = recordFiles(folder, "/work/lib");
    await writeFile(app.current, lines(event({ project: "/work/app", rule: "app-2" })));
    await writeFile(app.rotated, lines(event({ project: "/work/app", rule: "app-1" })));
    await writeFile(lib.current, `${lines(event({ project: "/work/lib", rule: "lib-1" }))}{\n`);
    await writeFile(join(folder, "notes.txt"), "not a record");
    await mkdir(join(folder, "folder.jsonl"));
    const read = await readRecord(folder, { all: true });
    expect(read.files).toEqual([app.rotated, app.current, lib.current]);
    expect(read.events.map((e) => e.rule)).toEqual(["app-1", "app-2", "lib-1"]);
    expect(read).toMatchObject({ damaged: 1, missing: false, notes: [] });
  });

  it("says all is missing without a folder or without a record in it", async () => {
    const folder = await dirs.make();
    expect(await readRecord(join(folder, "none"), { all: true })).toMatchObject({ missing: true, files: [] });
    await writeFile(join(folder, "notes.txt"), "");
    expect(await readRecord(folder, { all: true })).toMatchObject({ missing: true, files: [] });
  });
});
