/**
 * Smoke test of the OpenCode 1 scenario driver (`test/support/opencode-1-driver.ts`):
 * the real `opencode serve` with the plugin, seen through the host-neutral
 * `SeenRequest` shape.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { HostDriver, SeenRequest } from "../support/scenario-driver.js";
import { realOpenCode1 } from "../support/opencode-1-driver.js";
import { alwaysRule } from "./harness/rules.js";

const MARK = "MARK-DRIVER-ALWAYS-6e2";
const LATER = "MARK-DRIVER-LATER-1c8";
const always = (line: string) => alwaysRule("House", line);

const textOf = (request: SeenRequest) => request.messages.map((m) => m.text).join("\n");
const count = (text: string, needle: string) => text.split(needle).length - 1;

describe("the OpenCode 1 driver (real OpenCode)", { timeout: 60_000 }, () => {
  let host: HostDriver;

  beforeAll(async () => {
    host = realOpenCode1();
    await host.start({
      projectRules: { "house.md": always(`${MARK}: be brief.`) },
      projectFiles: { "src/app.ts": "export const answer = 42;\n" },
    });
  }, 60_000);

  afterAll(async () => {
    await host?.stop();
  });

  test("a turn is one request holding the rule once; a read is two, the second with the tool result", async () => {
    const id = await host.newSession();
    const [first, ...more] = await host.turn(id, "Hello there.");
    expect(more).toHaveLength(0);
    expect(first!.messages[0]!.role).toBe("system");
    expect(count(textOf(first!), MARK)).toBe(1);
    expect(first!.messages.at(-1)).toMatchObject({ role: "user" });
    expect(first!.messages.at(-1)!.text).toContain("Hello there.");

    const read = await host.turn(id, "Look at the app.", [{ read: "src/app.ts" }, { answer: "It exports answer." }]);
    expect(read).toHaveLength(2);
    const call = read[1]!.messages.find((m) => m.role === "assistant" && m.text.includes("[tool-call read"));
    expect(call?.text).toContain(JSON.stringify({ filePath: host.projectPath("src/app.ts") }));
    expect(read[1]!.messages.at(-1)!.role).toBe("tool");
    expect(read[1]!.messages.at(-1)!.text).toContain("export const answer = 42;");
    expect(count(textOf(read[1]!), MARK)).toBe(1);
  });

  test("after a compaction and a new rule file, the next request holds each rule once", async () => {
    const id = await host.newSession();
    await host.turn(id, "First.");
    await host.writeRule("later.md", always(`${LATER}: added later.`));
    const requests = await host.compactThenTurn(id, "Carry on.");
    expect(requests).toHaveLength(1);
    expect(count(textOf(requests[0]!), MARK)).toBe(1);
    expect(count(textOf(requests[0]!), LATER)).toBe(1);
    expect(requests[0]!.messages.at(-1)!.text).toContain("Carry on.");
  });
});

describe("the OpenCode 1 driver with a throwing client (real OpenCode)", { timeout: 60_000 }, () => {
  let host: HostDriver;

  beforeAll(async () => {
    host = realOpenCode1();
    await host.start({ projectRules: { "house.md": always(`${MARK}: be brief.`) }, failingClient: true });
  }, 60_000);

  afterAll(async () => {
    await host?.stop();
  });

  test("the session works and its first request holds the rule once", async () => {
    const id = await host.newSession();
    const requests = await host.turn(id, "Hello there.");
    expect(requests).toHaveLength(1);
    expect(count(textOf(requests[0]!), MARK)).toBe(1);
  });
});
