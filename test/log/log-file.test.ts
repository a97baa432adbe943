/** The plugin's own log file (OpenCode 2): where it is, one line per entry, rotated past its bound, never thrown from. */
import { readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { fileLogSink, logLine, openCodeLogDir, ROTATED_LOG_FILE_NAME, rulebookLogFile } from "../../src/log-file.js";
import { createLogger } from "../../src/log.js";
import { tempFolder } from "../support/temp-folder.js";

let folder: string;
beforeEach(async () => {
  folder = await tempFolder("rulebook-log-");
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const TIME = new Date("2026-11-25T10:00:00.000Z");

describe("where the log is", () => {
  test("OpenCode's log folder: $XDG_DATA_HOME/opencode/log, else ~/.local/share/opencode/log; an empty variable counts as unset", () => {
    expect(openCodeLogDir({ XDG_DATA_HOME: "/data" }, "/home/u")).toBe("/data/opencode/log");
    expect(openCodeLogDir({}, "/home/u")).toBe("/home/u/.local/share/opencode/log");
    expect(openCodeLogDir({ XDG_DATA_HOME: "" }, "/home/u")).toBe("/home/u/.local/share/opencode/log");
    expect(rulebookLogFile({}, "/home/u")).toBe("/home/u/.local/share/opencode/log/opencode-rulebook.log");
  });
});

describe("a line", () => {
  test("time, level, message and its extra as JSON; a newline or escape in a message cannot start another line or drive the terminal", () => {
    expect(logLine(TIME, "warn", "rule x skipped", { path: "/p" })).toBe(
      '2026-11-25T10:00:00.000Z WARN  rule x skipped {"path":"/p"}\n',
    );
    const forged = logLine(TIME, "info", "rule evil\n2026-11-25T10:00:00.000Z ERROR forged\u001b[31m");
    expect(forged.split("\n")).toHaveLength(2);
    expect(forged).toContain("rule evil\\u000a2026");
    expect(forged).toContain("\\u001b[31m");
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(logLine(TIME, "error", "x", circular)).toBe("2026-11-25T10:00:00.000Z ERROR x {extra not serialisable}\n");
  });
});

describe("the sink", () => {
  test("every line to the file in order, in its folder created on first use; warnings and errors to stderr as well, never debug or info", async () => {
    const stderr: string[] = [];
    const file = join(folder, "a", "b", "opencode-rulebook.log");
    const log = createLogger(fileLogSink(file, { stderr: (text) => stderr.push(text), now: () => TIME }), true);
    for (let i = 0; i < 50; i++) log.debug(`line ${i}`);
    log.info("info");
    log.warn("careful");
    log.error("broken");
    await log.flush();
    const lines = (await readFile(file, "utf8")).trimEnd().split("\n");
    expect(lines.slice(0, 50)).toEqual(
      Array.from({ length: 50 }, (_, i) => `2026-11-25T10:00:00.000Z DEBUG line ${i}`),
    );
    expect(lines.slice(50)).toEqual([
      "2026-11-25T10:00:00.000Z INFO  info",
      "2026-11-25T10:00:00.000Z WARN  careful",
      "2026-11-25T10:00:00.000Z ERROR broken",
    ]);
    expect(stderr).toEqual([
      "[opencode-rulebook] 2026-11-25T10:00:00.000Z WARN  careful\n",
      "[opencode-rulebook] 2026-11-25T10:00:00.000Z ERROR broken\n",
    ]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  test("past its bound the file is rotated: the two files together stay within about twice the bound, the newest lines kept", async () => {
    const file = join(folder, "opencode-rulebook.log");
    const log = createLogger(fileLogSink(file, { maxBytes: 2000, stderr: () => undefined, now: () => TIME }), true);
    for (let i = 0; i < 500; i++) {
      log.info(`entry ${i} ${"x".repeat(40)}`);
      if (i % 7 === 0) await log.flush();
    }
    await log.flush();
    const current = await readFile(file, "utf8");
    const rotated = await readFile(join(folder, ROTATED_LOG_FILE_NAME), "utf8");
    expect(Buffer.byteLength(rotated)).toBeLessThanOrEqual(2000 + 7 * 80);
    expect(Buffer.byteLength(current)).toBeLessThanOrEqual(2000 + 7 * 80);
    expect(current.trimEnd().split("\n").at(-1)).toContain("entry 499 ");
    expect(rotated).not.toContain("entry 0 ");
  });

  test("a log that cannot be written: said once on stderr, never thrown; warnings still reach stderr", async () => {
    const blocker = join(folder, "not-a-folder");
    await writeFile(blocker, "");
    const stderr: string[] = [];
    const log = createLogger(
      fileLogSink(join(blocker, "opencode-rulebook.log"), { stderr: (text) => stderr.push(text), now: () => TIME }),
      true,
    );
    log.debug("one");
    log.warn("two");
    log.debug("three");
    await expect(log.flush()).resolves.toBeUndefined();
    expect(stderr.filter((line) => line.includes("cannot write its log file"))).toHaveLength(1);
    expect(stderr).toContain("[opencode-rulebook] 2026-11-25T10:00:00.000Z WARN  two\n");
    const throwingStderr = createLogger(
      fileLogSink(join(blocker, "x.log"), {
        stderr: () => {
          throw new Error("stderr closed");
        },
      }),
      true,
    );
    throwingStderr.error("still fine");
    await expect(throwingStderr.flush()).resolves.toBeUndefined();
  });
});
