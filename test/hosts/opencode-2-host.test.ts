/**
 * The simulated OpenCode 2 host's own semantics (test/support/opencode-2-host.ts),
 * checked with tiny inline plugins: loading, prompts, context hooks, turns,
 * events and storage (its tools: opencode-2-host-tools.test.ts; its scenario
 * driver: opencode-2-driver.test.ts).
 */
import { tmpdir } from "node:os";
import { afterEach, describe, expect, test } from "vitest";
import type { HostEvent, PluginContext, SessionPrompt } from "../../src/hosts/opencode-2/api.js";
import type { LlmMessage } from "../../src/hosts/opencode-2/api-llm.js";
import {
  type ModelRequest,
  type Responder,
  type SimulatedHost,
  startSimulatedHost,
} from "../support/opencode-2-host.js";
import { read, script, startInlineHost as start, stopInlineHosts } from "../support/opencode-2-inline-host.js";
import { SYSTEM_PROMPT } from "../support/opencode-2-loop.js";

const LOAD_ERROR = "Plugin must export a default definition with an id and an effect or setup function.";

afterEach(stopInlineHosts);

const textOf = (message: LlmMessage | undefined) =>
  (message?.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");
const tick = () => new Promise((resolve) => setImmediate(resolve));

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

describe("simulated OpenCode 2 host", () => {
  test("loads only a default export with a string id and a setup function; setup gets options and location, cleanup runs at stop", async () => {
    for (const bad of [
      undefined,
      null,
      () => ({}),
      { id: "x" },
      { setup() {} },
      { id: 1, setup() {} },
      { id: "x", setup: "no" },
    ])
      await expect(startSimulatedHost({ plugin: bad, directory: tmpdir(), responder: () => ({}) })).rejects.toThrow(
        LOAD_ERROR,
      );
    const seen: Array<Pick<PluginContext, "options" | "location">> = [];
    let cleaned = 0;
    // An extra V1 `server` key is tolerated (dropped by the decode).
    const dual = {
      id: "dual",
      server: async () => ({}),
      setup: (ctx: PluginContext) => {
        seen.push({ options: ctx.options, location: ctx.location });
        return () => void cleaned++;
      },
    };
    const host = await startSimulatedHost({
      plugin: dual,
      options: { debug: true },
      directory: "/project",
      responder: () => ({}),
    });
    expect(seen).toEqual([
      { options: { debug: true }, location: { directory: "/project", project: { directory: "/project" } } },
    ]);
    await host.stop();
    expect(cleaned).toBe(1);
  });

  test("prompt hooks run in order on one event; the edited text is the stored user message, under the hook's messageID", async () => {
    const events: SessionPrompt[] = [];
    const registrations: Array<{ dispose(): Promise<void> }> = [];
    const host = await start(async (ctx) => {
      await ctx.session.hook("prompt", (event) => {
        event.prompt.text += " A";
      });
      registrations.push(
        await ctx.session.hook("prompt", (event) => {
          event.prompt.text += " B";
          events.push(structuredClone(event));
        }),
      );
    });
    const session = host.createSession();
    await host.prompt(session, "hello");
    const [event] = events;
    expect(event).toMatchObject({ sessionID: session, delivery: "steer", prompt: { text: "hello A B" } });
    expect(event?.messageID).toMatch(/^msg_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
    expect(host.history(session)[0]).toEqual({ type: "user", id: event?.messageID, text: "hello A B" });
    expect(host.requests(session)[0]?.messages[0]).toEqual({
      id: event?.messageID,
      role: "user",
      content: [{ type: "text", text: "hello A B" }],
    });

    await registrations[0]?.dispose();
    await host.prompt(session, "again");
    const users = host.history(session).filter((entry) => entry.type === "user");
    expect(users.map((entry) => entry.text)).toEqual(["hello A B", "again A"]);
    expect(users[1]!.id > users[0]!.id).toBe(true);
  });

  test("a throwing prompt hook rejects the prompt and nothing is stored", async () => {
    const host = await start(async (ctx) => {
      await ctx.session.hook("prompt", () => {
        throw new Error("prompt boom");
      });
    });
    const session = host.createSession();
    await expect(host.prompt(session, "hello")).rejects.toThrow("prompt boom");
    expect(host.history(session)).toEqual([]);
    expect(host.requests()).toEqual([]);
  });

  test("context hook edits reach that request only, never history", async () => {
    const seen: Array<{ agent: string; model: unknown; tools: string[] }> = [];
    let calls = 0;
    const host = await start(
      async (ctx) => {
        await ctx.session.hook("context", (event) => {
          seen.push({
            agent: event.agent,
            model: event.model,
            tools: Object.keys((event as { tools?: object }).tools ?? {}),
          });
          if (++calls > 1) return;
          event.system.push({ type: "text", text: "RULES" });
          event.messages.push({ role: "user", content: [{ type: "text", text: "EXTRA" }] });
        });
      },
      script(read("a.txt")),
    );
    const session = host.createSession();
    await host.prompt(session, "hello");
    const [first, second] = host.requests(session);
    expect(first?.system).toEqual([
      { type: "text", text: SYSTEM_PROMPT },
      { type: "text", text: "RULES" },
    ]);
    expect(textOf(first?.messages.at(-1))).toBe("EXTRA");
    expect(second?.system).toEqual([{ type: "text", text: SYSTEM_PROMPT }]);
    expect(second?.messages.map(textOf)).not.toContain("EXTRA");
    expect(JSON.stringify(host.history(session))).not.toContain("EXTRA");
    expect(seen[0]).toEqual({
      agent: "build",
      model: { providerID: "sim", id: "sim-model" },
      tools: ["read", "write", "edit", "shell"],
    });
  });

  test("a steer joins at the next step boundary, after the tool results; a queued prompt waits for idle", async () => {
    let host!: SimulatedHost;
    let session = "";
    const order: string[] = [];
    let later: Promise<void> | undefined;
    const responder: Responder = async (request) => {
      if (host.requests(session).length > 1) return { text: `answer ${request.messages.length}` };
      later = Promise.all([
        host.prompt(session, "STEER", { delivery: "steer" }).then(() => order.push("steer")),
        host.prompt(session, "LATER", { delivery: "queue" }).then(() => order.push("queued")),
      ]).then(() => undefined);
      await tick();
      return read("a.txt");
    };
    host = await start(() => undefined, responder);
    session = host.createSession();
    await host.prompt(session, "FIRST").then(() => order.push("first"));
    await later;
    const requests = host.requests(session);
    expect(requests).toHaveLength(3);
    expect(requests[1]?.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(textOf(requests[1]?.messages.at(-1))).toBe("STEER");
    expect(requests[1]?.messages.map(textOf)).not.toContain("LATER");
    expect(textOf(requests[2]?.messages.at(-1))).toBe("LATER");
    expect(order).toEqual(["first", "steer", "queued"]);
  });

  test("a steer admitted during a step without tool calls still costs one more step of the same turn", async () => {
    let host!: SimulatedHost;
    let session = "";
    let firstOver = false;
    let overDuringSecondStep: boolean | undefined;
    const responder: Responder = async () => {
      if (host.requests(session).length === 1) void host.prompt(session, "STEER");
      await tick();
      if (host.requests(session).length === 2) overDuringSecondStep = firstOver;
      return { text: "ok" };
    };
    host = await start(() => undefined, responder);
    session = host.createSession();
    await host.prompt(session, "FIRST").then(() => (firstOver = true));
    expect(host.requests(session).map((request) => textOf(request.messages.at(-1)))).toEqual(["FIRST", "STEER"]);
    expect(overDuringSecondStep).toBe(false);
  });

  test("after a checkpoint, earlier messages are no longer sent (still stored)", async () => {
    const host = await start(() => undefined);
    const session = host.createSession();
    await host.prompt(session, "one");
    await host.compact(session);
    await host.prompt(session, "two");
    const checkpoint = host.history(session).find((entry) => entry.type === "checkpoint");
    const messages = host.requests(session).at(-1)?.messages ?? [];
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatchObject({ id: checkpoint?.id, role: "user" });
    expect(textOf(messages[0])).toMatch(
      /^<conversation-checkpoint>\n[\s\S]*<summary>\nSUMMARY-1\n<\/summary>\n<\/conversation-checkpoint>$/,
    );
    expect(textOf(messages[1])).toBe("two");
    expect(host.history(session).map((entry) => (entry.type === "user" ? entry.text : entry.type))).toEqual([
      "one",
      "assistant",
      "checkpoint",
      "two",
      "assistant",
    ]);
  });

  test("a throwing context hook fails the request: recorded with its error, the model not asked, the turn rejected", async () => {
    const asked: ModelRequest[] = [];
    let throwing = true;
    const host = await start(
      async (ctx) => {
        await ctx.session.hook("context", () => {
          if (throwing) throw new Error("context boom");
        });
      },
      (request) => {
        asked.push(request);
        return { text: "ok" };
      },
    );
    const session = host.createSession();
    await expect(host.prompt(session, "hello")).rejects.toThrow("context boom");
    expect(host.requests(session)).toMatchObject([{ error: "context boom" }]);
    expect(asked).toEqual([]);
    throwing = false;
    await host.prompt(session, "again");
    expect(asked.map((request) => request.messages.map(textOf))).toEqual([["hello", "again"]]);
  });

  test("events reach subscribers asynchronously; session.deleted carries the id; the stream ends at stop", async () => {
    const events: HostEvent[] = [];
    let ended: Promise<void> | undefined;
    const host = await start((ctx) => {
      const stream = ctx.event.subscribe({ signal: new AbortController().signal });
      ended = (async () => {
        for await (const event of stream) events.push(event);
      })();
    });
    const parent = host.createSession();
    const child = host.createSession({ parentID: parent });
    expect(events).toEqual([]);
    host.deleteSession(child);
    await until(() => events.length === 3);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ["session.created", { sessionID: parent, agent: "build" }],
      ["session.created", { sessionID: child, parentID: parent, agent: "build" }],
      ["session.deleted", { sessionID: child }],
    ]);
    await expect(host.prompt(child, "hello")).rejects.toThrow("Session not found");
    await host.stop();
    await expect(ended).resolves.toBeUndefined();
  });

  test("session.get and storage work, storage copies values; in failing mode every one of them rejects", async () => {
    let ctx!: PluginContext;
    const host = await start((context) => {
      ctx = context;
    });
    const parent = host.createSession();
    const child = host.createSession({ parentID: parent, model: { providerID: "p", id: "m" } });
    await expect(ctx.session.get({ sessionID: child })).resolves.toEqual({
      id: child,
      parentID: parent,
      agent: "build",
      model: { providerID: "p", id: "m" },
    });
    const value = { list: [1] };
    await ctx.storage?.set("k", value);
    value.list.push(2);
    const stored = (await ctx.storage?.get("k")) as { list: number[] };
    stored.list.push(3);
    await expect(ctx.storage?.get("k")).resolves.toEqual({ list: [1] });
    await ctx.storage?.remove("k");
    await expect(ctx.storage?.get("k")).resolves.toBeUndefined();

    let failing!: PluginContext;
    const broken = await start(
      (context) => {
        failing = context;
      },
      undefined,
      true,
    );
    const session = broken.createSession();
    await expect(failing.session.get({ sessionID: session })).rejects.toThrow();
    await expect(failing.storage?.get("k")).rejects.toThrow();
    await expect(failing.storage?.set("k", 1)).rejects.toThrow();
    await expect(failing.storage?.remove("k")).rejects.toThrow();
    await broken.prompt(session, "still works");
    expect(broken.requests(session)).toHaveLength(1);
  });
});
