/** Reading rule files and parsing them apart in time: every result in input order, and never more than the bound under way. */
import { describe, expect, test } from "vitest";
import { readAndSettle } from "../../src/discover/read-settle.js";

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("readAndSettle", () => {
  test("nothing to read: no results", async () => {
    expect(
      await readAndSettle(
        [],
        4,
        async () => 0,
        () => ({ value: 0 }),
      ),
    ).toEqual([]);
  });

  test("results come in input order, whatever order the reads end in", async () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    const results = await readAndSettle(
      items,
      8,
      async (i) => {
        await tick((i * 7) % 5);
        return i * 10;
      },
      (i, read) => (i % 3 === 0 ? { later: async () => `${i}:${read}:later` } : { value: `${i}:${read}` }),
    );
    expect(results).toEqual(items.map((i) => (i % 3 === 0 ? `${i}:${i * 10}:later` : `${i}:${i * 10}`)));
  });

  test("reads and later work together stay within the bound", async () => {
    let busy = 0;
    let most = 0;
    const track = async <T>(work: () => Promise<T>) => {
      most = Math.max(most, ++busy);
      try {
        return await work();
      } finally {
        busy--;
      }
    };
    const items = Array.from({ length: 100 }, (_, i) => i);
    const slow = async (i: number) => {
      await tick(1);
      return i;
    };
    await readAndSettle(
      items,
      5,
      (i) => track(() => slow(i)),
      (i) => (i % 2 ? { later: () => track(() => slow(i)) } : { value: i }),
    );
    expect(most).toBeLessThanOrEqual(5);
    expect(most).toBeGreaterThan(1);
  });

  test("parsing waits for the next check phase: the other reads are under way by then", async () => {
    const order: string[] = [];
    await readAndSettle(
      [1, 2, 3],
      3,
      async (i) => {
        order.push(`read ${i}`);
        return i;
      },
      (i) => {
        order.push(`settle ${i}`);
        return { value: i };
      },
    );
    expect(order.slice(0, 3)).toEqual(["read 1", "read 2", "read 3"]);
  });

  test("a failure in settling or in later work fails the whole", async () => {
    await expect(
      readAndSettle(
        [1, 2],
        2,
        async (i) => i,
        () => {
          throw new Error("parser bug");
        },
      ),
    ).rejects.toThrow("parser bug");
    await expect(
      readAndSettle(
        [1, 2],
        2,
        async (i) => i,
        () => ({ later: () => Promise.reject(new Error("late")) }),
      ),
    ).rejects.toThrow("late");
  });
});
