/**
 * The record's file on disk (record/store-file.ts, through the writer): only
 * this user's, never through a link, and bounded by rotation to two files.
 */
import { execFileSync } from "node:child_process";
import { constants, existsSync } from "node:fs";
import { chmod, chown, lstat, mkdir, open, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { RecordEvent } from "../../src/record/event.js";
import { recordFiles } from "../../src/record/location.js";
import { type RecordWriterOptions, recordWriter } from "../../src/record/store.js";
import { collectedLog, settled } from "../support/deaf-host.js";
import { countLine, RECORD_PROJECT } from "../support/record-events.js";
import { tempDirs } from "../support/temp-folder.js";

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const PROJECT = RECORD_PROJECT;
const event = countLine;
const LINE_BYTES = JSON.stringify(event(10)).length + 1;
const isRoot = process.getuid?.() === 0;
const posix = process.platform !== "win32";

async function setUp(options: Partial<RecordWriterOptions> & { folder?: string } = {}) {
  const folder = options.folder ?? join(await dirs.make("rulebook-record-"), "state", "rulebook");
  const { lines, log } = collectedLog();
  const writer = recordWriter({ folder, projectRoot: PROJECT, log, flushMs: 60_000, ...options });
  const files = recordFiles(folder, PROJECT);
  const callsIn = async (path: string) =>
    existsSync(path)
      ? (await readFile(path, "utf8"))
          .split("\n")
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as RecordEvent).call!)
      : [];
  const warnings = () => lines.filter((line) => line.startsWith("warn: "));
  return { folder, ...files, writer, lines, warnings, callsIn };
}

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe.runIf(posix)("record file: only this user's", () => {
  test("a new folder is 0700 and the file 0600", async () => {
    const { writer, folder, current } = await setUp();
    writer.add(event(1));
    await writer.flush();
    expect(await mode(folder)).toBe(0o700);
    expect(await mode(current)).toBe(0o600);
  });

  test("an existing file others may read becomes 0600, and is appended to", async () => {
    const { writer, folder, current, callsIn } = await setUp();
    await mkdir(folder, { recursive: true, mode: 0o700 });
    await writeFile(current, `${JSON.stringify(event(1))}\n`);
    await chmod(current, 0o644);
    writer.add(event(2));
    await writer.flush();
    expect(await mode(current)).toBe(0o600);
    expect(await callsIn(current)).toEqual([1, 2]);
  });

  test("a folder others may write is refused, said once, and nothing is written in it", async () => {
    const { writer, folder, warnings } = await setUp();
    await mkdir(folder, { recursive: true });
    await chmod(folder, 0o777);
    for (const n of [1, 2, 3]) {
      writer.add(event(n));
      await writer.flush();
    }
    expect(await readdir(folder)).toEqual([]);
    expect(warnings()).toEqual([expect.stringContaining(`${folder}: other users may write to it`)]);
  });

  test("a symbolic link in place of the record file is not followed, said once", async () => {
    const { writer, folder, current, warnings } = await setUp();
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const target = join(folder, "..", "elsewhere.txt");
    await writeFile(target, "keep me\n");
    await symlink(target, current);
    for (const n of [1, 2]) {
      writer.add(event(n));
      await writer.flush();
    }
    expect(await readFile(target, "utf8")).toBe("keep me\n");
    expect((await lstat(current)).isSymbolicLink()).toBe(true);
    expect(warnings()).toEqual([expect.stringContaining(`${current}: it is a symbolic link`)]);
  });

  test("a folder in place of the record file is not written to, said once", async () => {
    const { writer, current, warnings } = await setUp();
    await mkdir(current, { recursive: true });
    for (const n of [1, 2]) {
      writer.add(event(n));
      await writer.flush();
    }
    expect(await readdir(current)).toEqual([]);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain(current);
  });

  test("a FIFO in place of the record file neither hangs the write nor is written to", async () => {
    const { writer, folder, current, warnings } = await setUp();
    await mkdir(folder, { recursive: true, mode: 0o700 });
    execFileSync("mkfifo", [current]);
    writer.add(event(1));
    await settled("flush", writer.flush(), 2000);
    expect(warnings()).toEqual([expect.stringContaining(current)]);
    await settled("close", writer.close(), 2000);
  });

  test("a FIFO with a reader in place of the file is opened but not written to: not a regular file", async () => {
    const { writer, folder, current, warnings } = await setUp();
    await mkdir(folder, { recursive: true, mode: 0o700 });
    execFileSync("mkfifo", [current]);
    const reader = await open(current, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      writer.add(event(1));
      await settled("flush", writer.flush(), 2000);
      // Nothing came through: the writer has closed it again, so the read ends at once.
      expect((await reader.read(Buffer.alloc(64), 0, 64)).bytesRead).toBe(0);
      expect(warnings()).toEqual([expect.stringContaining(`${current}: it is not a regular file`)]);
    } finally {
      await reader.close();
    }
  });

  // Only root can give a file or folder to another user.
  test.runIf(isRoot)("a file or folder another user owns is not written to", async () => {
    const file = await setUp();
    await mkdir(file.folder, { recursive: true, mode: 0o700 });
    await writeFile(file.current, "");
    await chown(file.current, 12345, 12345);
    file.writer.add(event(1));
    await file.writer.flush();
    expect(await readFile(file.current, "utf8")).toBe("");
    expect(file.warnings()).toEqual([expect.stringContaining(`${file.current}: another user owns it`)]);

    const folder = await setUp();
    await mkdir(folder.folder, { recursive: true, mode: 0o700 });
    await chown(folder.folder, 12345, 12345);
    folder.writer.add(event(1));
    await folder.writer.flush();
    expect(await readdir(folder.folder)).toEqual([]);
    expect(folder.warnings()).toEqual([expect.stringContaining(`${folder.folder}: another user owns it`)]);
  });
});

describe("record file: bounded by rotation", () => {
  const max = LINE_BYTES * 5;

  /** The project's files in the folder, and what each holds. */
  async function kept(setup: Awaited<ReturnType<typeof setUp>>) {
    const names = (await readdir(setup.folder)).sort();
    const sizes = await Promise.all(names.map(async (name) => (await stat(join(setup.folder, name))).size));
    return {
      names,
      sizes,
      rotated: await setup.callsIn(setup.rotated),
      current: await setup.callsIn(setup.current),
    };
  }

  test("batch by batch: two files, the newest events in the current one, the oldest dropped", async () => {
    const setup = await setUp({ maxFileBytes: max });
    for (let n = 10; n < 40; n++) {
      setup.writer.add(event(n));
      await setup.writer.flush();
    }
    const files = await kept(setup);
    expect(files.names).toEqual(
      [setup.current, setup.rotated].map((path) => path.slice(setup.folder.length + 1)).sort(),
    );
    expect(files.current.at(-1)).toBe(39);
    expect([...files.rotated, ...files.current]).toEqual(Array.from({ length: 10 }, (_, i) => 30 + i));
    for (const size of files.sizes) expect(size).toBeLessThanOrEqual(max);
  });

  test("a batch bigger than the bound is split between files: neither passes it", async () => {
    const setup = await setUp({ maxFileBytes: max });
    for (let n = 10; n < 33; n++) setup.writer.add(event(n));
    await setup.writer.flush();
    const files = await kept(setup);
    expect(files.names).toHaveLength(2);
    expect(files.current).toEqual([30, 31, 32]);
    expect(files.rotated).toEqual([25, 26, 27, 28, 29]);
    for (const size of files.sizes) expect(size).toBeLessThanOrEqual(max);
  });

  test("a rotated file from before is replaced, never added to", async () => {
    const setup = await setUp({ maxFileBytes: max });
    await mkdir(setup.folder, { recursive: true, mode: 0o700 });
    await writeFile(setup.rotated, "old\n", { mode: 0o600 });
    await writeFile(setup.current, `${JSON.stringify(event(10))}\n`.repeat(5), { mode: 0o600 });
    setup.writer.add(event(11));
    await setup.writer.flush();
    const files = await kept(setup);
    expect(files.rotated).toEqual([10, 10, 10, 10, 10]);
    expect(files.current).toEqual([11]);
  });

  test("an event longer than the bound on its own is written alone, and rotated away by the next", async () => {
    const setup = await setUp({ maxFileBytes: LINE_BYTES * 2 });
    setup.writer.add(event(10));
    setup.writer.add({ ...event(11), source: "x".repeat(LINE_BYTES * 3) });
    setup.writer.add(event(12));
    await setup.writer.flush();
    const files = await kept(setup);
    expect(files.rotated).toEqual([11]);
    expect(files.current).toEqual([12]);
  });
});
