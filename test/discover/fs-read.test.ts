/** `readAtMost` on real files: the bytes a caller gets, and the memory a read may take. */
import fs, { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { nodeRuleFs, readAtMost } from "../../src/discover/fs.js";
import { tempFolder } from "../support/temp-folder.js";

const MIB = 1024 * 1024;
let dir: string;
beforeEach(async () => {
  dir = await tempFolder("rulebook-read-");
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, bytes: Uint8Array | string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8");

describe("readAtMost", () => {
  test("a small file is returned whole", async () => {
    const read = await readAtMost(await file("small.md", "Use tabs.\n"), 100);
    expect(text(read)).toBe("Use tabs.\n");
    expect(read.byteLength).toBe(10);
  });

  test("a file of exactly the limit is returned whole", async () => {
    const bytes = Buffer.alloc(1000, "a");
    const read = await readAtMost(await file("edge.md", bytes), 1000);
    expect(read.byteLength).toBe(1000);
    expect(Buffer.from(read).equals(bytes)).toBe(true);
  });

  test("a file over the limit gives the limit + 1 bytes, so the caller sees it as too large", async () => {
    const read = await readAtMost(await file("big.md", Buffer.alloc(5000, "b")), 1000);
    expect(read.byteLength).toBe(1001);
    expect(text(read)).toBe("b".repeat(1001));
  });

  test("an empty file gives no bytes", async () => {
    expect((await readAtMost(await file("empty.md", ""), 1000)).byteLength).toBe(0);
  });

  test("multi-byte text is returned byte for byte", async () => {
    const content = "Écrire « toujours » des tests — 日本語\n";
    expect(text(await readAtMost(await file("utf8.md", content), 1000))).toBe(content);
  });

  test("a 10-byte file read with a 16 MiB limit takes a few bytes, not 16 MiB", async () => {
    const path = await file("tiny.md", "0123456789");
    const before = process.memoryUsage().arrayBuffers;
    const reads = await Promise.all(Array.from({ length: 50 }, () => readAtMost(path, 16 * MIB)));
    const after = process.memoryUsage().arrayBuffers;
    for (const read of reads) {
      expect(read.byteLength).toBe(10);
      // Small Buffers may share Node's 8 KiB slab; a buffer sized by the limit would be 16 MiB + 1.
      expect(read.buffer.byteLength).toBeLessThanOrEqual(16 * 1024);
    }
    // 50 reads in flight at once: with limit-sized buffers this would be 800 MiB.
    expect(after - before).toBeLessThan(4 * MIB);
  });

  test("a file of 1 MiB read with a 16 MiB limit allocates about 1 MiB", async () => {
    const read = await readAtMost(await file("mid.md", Buffer.alloc(MIB, "m")), 16 * MIB);
    expect(read.byteLength).toBe(MIB);
    expect(read.buffer.byteLength).toBeLessThanOrEqual(MIB + 1);
  });

  test("is the reader discovery uses", () => {
    expect(nodeRuleFs.readFile).toBe(readAtMost);
  });

  test("a missing file is an ENOENT error, as before", async () => {
    await expect(readAtMost(join(dir, "missing.md"), 100)).rejects.toMatchObject({ code: "ENOENT" });
  });

  // Files under /proc report size 0 yet have content: the same as a file that grew after fstat.
  test.skipIf(!existsSync("/proc/self/status"))(
    "a file larger than its fstat size is read on to the end, or to the limit + 1",
    async () => {
      const whole = await readAtMost("/proc/self/status", 1 * MIB);
      expect(whole.byteLength).toBeGreaterThan(100);
      expect(text(whole)).toMatch(/^Name:/);
      expect(text(whole)).toMatch(/\n$/);
      expect((await readAtMost("/proc/self/status", 50)).byteLength).toBe(51);
    },
  );
});

describe("readAtMost with the size the walk saw", () => {
  test("a file of the size given: open, one read, close (no fstat, no read of nothing at the end)", async () => {
    const path = await file("sized.md", "x".repeat(1000));
    const calls = { fstat: vi.spyOn(fs, "fstat"), read: vi.spyOn(fs, "read") };
    const read = await readAtMost(path, 65536, 1000);
    expect(read.byteLength).toBe(1000);
    expect(calls.fstat).not.toHaveBeenCalled();
    expect(calls.read).toHaveBeenCalledTimes(1);
  });

  test("without a size, the file is measured (fstat) and still read once", async () => {
    const path = await file("unsized.md", "y".repeat(1000));
    const calls = { fstat: vi.spyOn(fs, "fstat"), read: vi.spyOn(fs, "read") };
    expect((await readAtMost(path, 65536)).byteLength).toBe(1000);
    expect(calls.fstat).toHaveBeenCalledTimes(1);
    expect(calls.read).toHaveBeenCalledTimes(1);
  });

  test("a file that grew past the size given is read on, to its end or to the limit + 1", async () => {
    const path = await file("grew.md", "z".repeat(5000));
    expect(text(await readAtMost(path, 65536, 10))).toBe("z".repeat(5000));
    expect((await readAtMost(path, 1000, 10)).byteLength).toBe(1001);
  });

  test("a file that shrank below the size given is returned as it is, without the large buffer", async () => {
    const path = await file("shrank.md", "small");
    const read = await readAtMost(path, 65536, 60_000);
    expect(text(read)).toBe("small");
    expect(read.buffer.byteLength).toBeLessThanOrEqual(16 * 1024);
  });

  test("an empty file given size 0 gives no bytes", async () => {
    expect((await readAtMost(await file("empty0.md", ""), 100, 0)).byteLength).toBe(0);
  });
});
