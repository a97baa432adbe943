/**
 * Reading the record from disk (the I/O edge of `stats`): a project's
 * rotated file then its current one, or every record file in the folder.
 * Every read is bounded (a file's size, the folder's listing, the whole
 * read), and a line that is not a record event is counted and skipped,
 * never thrown: a record is written by many processes over months.
 */
import { constants, type Dirent } from "node:fs";
import { open, opendir, stat } from "node:fs/promises";
import { join } from "node:path";
import { RECORD_VERSION, type RecordEvent, type RecordKind } from "./event.js";
import { isRecordFile, RECORD_EXTENSION, recordFiles } from "./location.js";
import { MAX_RECORD_FILE_BYTES } from "./store.js";

/**
 * The writer rotates a file before it would pass its bound; a larger one (past a slack for one long line) is not read.
 */
export const RECORD_FILE_READ_LIMIT = MAX_RECORD_FILE_BYTES + 1024 * 1024;
/** The entries of the record folder looked at for `--all`. */
const RECORD_FOLDER_LIST_LIMIT = 10_000;
/** Everything `--all` reads, in bytes: past it, the files left are noted, not read. */
const RECORD_TOTAL_READ_LIMIT = 256 * 1024 * 1024;

/** Something of the record not read, as a value; `stats` words it where a person reads it. */
export type RecordReadNote =
  | { kind: "too-big"; file: string; bytes: number; limit: number }
  | { kind: "unreadable"; file: string; code: string }
  | { kind: "listing-cut"; folder: string; limit: number }
  | { kind: "total-cut"; file: string; limit: number };

export interface RecordRead {
  /** The events, file by file, each file's lines in order (a project's rotated file before its current one). */
  events: RecordEvent[];
  /** Lines that are not a record event (not JSON, not an object, a wrong field). */
  damaged: number;
  /** Lines of a newer version of the record than this reader knows. */
  newer: number;
  /** The files read. */
  files: string[];
  /** No record at all: no file (or no folder) to read. */
  missing: boolean;
  notes: RecordReadNote[];
}

interface ParsedRecord {
  events: RecordEvent[];
  damaged: number;
  newer: number;
}

const KINDS: ReadonlySet<string> = new Set<RecordKind>([
  "delivered",
  "listed",
  "left-out",
  "requested",
  "refused",
  "warned",
  "corrected",
  "gave-up",
  "verify",
  "tool-calls",
]);
const STRING_FIELDS = [
  "session",
  "agent",
  "model",
  "rule",
  "scope",
  "source",
  "pack",
  "trigger",
  "tool",
  "pattern",
  "file",
];
const NUMBER_FIELDS = ["tokens", "line", "call"];
/** The range of a JavaScript date: a time outside it cannot be shown. */
const LATEST_TIME = 8.64e15;

/** The record events of JSON lines; blank lines are skipped, anything else that is no event is counted. */
export function parseRecordLines(text: string): ParsedRecord {
  const parsed: ParsedRecord = { events: [], damaged: 0, newer: 0 };
  parseInto(text, parsed);
  return parsed;
}

function parseInto(text: string, into: ParsedRecord): void {
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      into.damaged++;
      continue;
    }
    const verdict = eventVerdict(value);
    if (verdict === "event") into.events.push(value as RecordEvent);
    else if (verdict === "newer") into.newer++;
    else into.damaged++;
  }
}

/** Whether a parsed line is an event this reader knows; the fields it reads are checked, so `stats` can trust them. */
function eventVerdict(value: unknown): "event" | "newer" | "damaged" {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "damaged";
  const line = value as Record<string, unknown>;
  if (line.v !== RECORD_VERSION)
    return typeof line.v === "number" && Number.isInteger(line.v) && line.v > RECORD_VERSION ? "newer" : "damaged";
  const at = line.at;
  if (typeof at !== "number" || !(Math.abs(at) <= LATEST_TIME)) return "damaged";
  if (typeof line.project !== "string" || typeof line.kind !== "string" || !KINDS.has(line.kind)) return "damaged";
  for (const field of STRING_FIELDS) if (line[field] !== undefined && typeof line[field] !== "string") return "damaged";
  for (const field of NUMBER_FIELDS) {
    const number = line[field];
    if (number !== undefined && (typeof number !== "number" || !Number.isFinite(number))) return "damaged";
  }
  return "event";
}

/** The record of one project (`projectRoot`), or of every project in the folder. */
export async function readRecord(folder: string, which: { projectRoot: string } | { all: true }): Promise<RecordRead> {
  const read: RecordRead = { events: [], damaged: 0, newer: 0, files: [], missing: false, notes: [] };
  let paths: string[];
  if ("all" in which) {
    const listed = await recordFileNames(folder, read.notes);
    if (listed === undefined) return { ...read, missing: true };
    paths = listed.map((name) => join(folder, name));
  } else {
    const { rotated, current } = recordFiles(folder, which.projectRoot);
    paths = [rotated, current];
  }
  let budget = RECORD_TOTAL_READ_LIMIT;
  for (const path of paths) {
    const file = await readBounded(path, Math.min(RECORD_FILE_READ_LIMIT, budget));
    if (file.kind === "missing") continue;
    if (file.kind === "text") {
      read.files.push(path);
      budget -= file.bytes;
      parseInto(file.text, read);
    } else if (file.kind === "too-big" && file.bytes <= RECORD_FILE_READ_LIMIT)
      read.notes.push({ kind: "total-cut", file: path, limit: RECORD_TOTAL_READ_LIMIT });
    else if (file.kind === "too-big")
      read.notes.push({ kind: "too-big", file: path, bytes: file.bytes, limit: RECORD_FILE_READ_LIMIT });
    else read.notes.push({ kind: "unreadable", file: path, code: file.code });
  }
  read.missing = read.files.length === 0 && read.notes.length === 0;
  return read;
}

/**
 * The record files of the folder, a project's rotated file just before its current one; undefined when there is no
 * folder or no record in it. At most RECORD_FOLDER_LIST_LIMIT entries are looked at.
 */
async function recordFileNames(folder: string, notes: RecordReadNote[]): Promise<string[] | undefined> {
  const names: string[] = [];
  let seen = 0;
  try {
    const dir = await opendir(folder);
    try {
      for (let entry: Dirent | null = await dir.read(); entry !== null; entry = await dir.read()) {
        if (++seen > RECORD_FOLDER_LIST_LIMIT) {
          notes.push({ kind: "listing-cut", folder, limit: RECORD_FOLDER_LIST_LIMIT });
          break;
        }
        if (!entry.isDirectory() && isRecordFile(entry.name)) names.push(entry.name);
      }
    } finally {
      await dir.close().catch(() => undefined);
    }
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    notes.push({ kind: "unreadable", file: folder, code });
    return [];
  }
  if (names.length === 0 && notes.length === 0) return undefined;
  return names.sort(byProjectThenAge);
}

/** `app-1.old.jsonl` before `app-1.jsonl`: by the project's key, the rotated (older) file first. */
function byProjectThenAge(a: string, b: string): number {
  const [keyA, keyB] = [projectKey(a), projectKey(b)];
  if (keyA !== keyB) return keyA < keyB ? -1 : 1;
  return (a.endsWith(ROTATED_ENDING) ? 0 : 1) - (b.endsWith(ROTATED_ENDING) ? 0 : 1);
}

const ROTATED_ENDING = `.old${RECORD_EXTENSION}`;
const projectKey = (name: string) =>
  name.endsWith(ROTATED_ENDING)
    ? name.slice(0, -ROTATED_ENDING.length)
    : name.slice(0, name.length - RECORD_EXTENSION.length);

type BoundedFile =
  | { kind: "text"; text: string; bytes: number }
  | { kind: "missing" }
  | { kind: "too-big"; bytes: number }
  | { kind: "unreadable"; code: string };

/** A regular file's text, when it is at most `limit` bytes; never more than `limit` bytes are read. */
async function readBounded(path: string, limit: number): Promise<BoundedFile> {
  try {
    // Checked before opening: opening a FIFO named like a record would wait for a writer.
    const before = await stat(path);
    if (!before.isFile()) return { kind: "unreadable", code: "not-a-file" };
    if (before.size > limit) return { kind: "too-big", bytes: before.size };
    const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      const { size } = await handle.stat();
      if (size > limit) return { kind: "too-big", bytes: size };
      const buffer = Buffer.allocUnsafe(size);
      let filled = 0;
      while (filled < size) {
        const { bytesRead } = await handle.read(buffer, filled, size - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return { kind: "text", text: buffer.toString("utf8", 0, filled), bytes: filled };
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = errorCode(error);
    return code === "ENOENT" ? { kind: "missing" } : { kind: "unreadable", code };
  }
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : String(error);
}
