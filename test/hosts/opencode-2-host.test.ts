/**
 * The simulated OpenCode 2 host's own semantics (test/support/opencode-2-host.ts),
 * checked with tiny inline plugins, and its scenario driver over one.
 */
import { existsSync, readFileSync } from "node:fs";
import { readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type {
  HostEvent,
  LlmMessage,
  PluginContext,
  SessionPrompt,
  ToolFinished,
} from "../../src/hosts/opencode-2/api.js";
import {
  type ModelReply,
  type ModelRequest,
  type Responder,
  type SimulatedHost,
  SYSTEM_PROMPT,
  startSimulatedHost,
} from "../support/opencode-2-host.js";
import { simulatedOpenCode2WithPlugin } from "../support/opencode-2-driver.js";
import { tempFolder } from "../support/temp-folder.js";

const LOAD_ERROR = "Plugin must export a default definition with an id and an effect or setup function.";
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A plugin whose setup is the given function. */
const plugin = (setup: (ctx: PluginContext) => unknown) => ({ id: "test-plugin", setup });

async function start(
  setup: (ctx: PluginContext) => unknown,
  responder: Responder = () => ({ text: "ok" }),
  failing = false,
): Promise<SimulatedHost> {
  const directory = await tempFolder("oc2-host-test-");
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  await writeFile(join(directory, "a.txt"), "file A");
  const host = await startSimulatedHost({
    plugin: plugin(setup),
    options: { answer: 42 },
    directory,
    responder,
    failing,
  });
  cleanups.push(() => host.stop());
  return host;
}

/** A scripted model: the replies in order, then "done". */
function script(...replies: ModelReply[]): Responder {
  return () => replies.shift() ?? { text: "done" };
}

const read = (path: string): ModelReply => ({ toolCalls: [{ name: "read", input: { path } }] });
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

  test("tool results are tool messages without an id, after their assistant message", async () => {
    const host = await start(
      () => undefined,
      script({ text: "looking", toolCalls: [{ name: "read", input: { path: "a.txt" } }] }),
    );
    const session = host.createSession();
    await host.prompt(session, "hello");
    const [user, assistant, tool, ...rest] = host.requests(session)[1]?.messages ?? [];
    const history = host.history(session);
    expect(rest).toEqual([]);
    expect(user).toMatchObject({ id: history[0]?.id, role: "user" });
    const call = assistant?.content[1] as { id: string };
    expect(assistant).toEqual({
      id: history[1]?.id,
      role: "assistant",
      content: [
        { type: "text", text: "looking" },
        { type: "tool-call", id: call.id, name: "read", input: { path: "a.txt" } },
      ],
    });
    expect(tool).toEqual({
      role: "tool",
      content: [{ type: "tool-result", id: call.id, name: "read", result: { type: "text", value: "file A" } }],
    });
    expect(tool && "id" in tool).toBe(false);
  });

  test("execute.before may change the input; execute.after's replaced result is stored and sent", async () => {
    const after: ToolFinished[] = [];
    const host = await start(
      async (ctx) => {
        await ctx.tool.hook("execute.before", (event) => {
          (event as { input: { path: string } }).input = { path: "a.txt" };
        });
        await ctx.tool.hook("execute.after", (event) => {
          after.push(structuredClone(event));
          if (event.status === "completed")
            event.result = { content: `REPLACED ${JSON.stringify(event.result.content)}` };
        });
      },
      script(read("alias.txt")),
    );
    const session = host.createSession();
    await host.prompt(session, "hello");
    const history = host.history(session);
    expect(after[0]).toMatchObject({
      tool: "read",
      sessionID: session,
      agent: "build",
      messageID: history[1]?.id,
      input: { path: "a.txt" },
      status: "completed",
    });
    // The hook sees the content normalized to an array, as OpenCode's runtime hands it over.
    const replaced = 'REPLACED [{"type":"text","text":"file A"}]';
    expect(history[1]).toMatchObject({
      tools: [
        { input: { path: "alias.txt" }, state: { status: "completed", content: [{ type: "text", text: replaced }] } },
      ],
    });
    expect(host.requests(session)[1]?.messages[2]?.content[0]).toMatchObject({
      result: { type: "text", value: replaced },
    });
  });

  test("empty content stands for the stringified output; a long result is cut to its head with a marker", async () => {
    const host = await start(
      async (ctx) => {
        await ctx.tool.transform((editor) => {
          editor.add({
            name: "long",
            description: "",
            input: {},
            options: { codemode: false },
            execute: async () => ({ content: Array.from({ length: 2500 }, (_, i) => `line ${i}`).join("\n") }),
          });
          editor.add({
            name: "json",
            description: "",
            input: {},
            options: { codemode: false },
            execute: async () => ({ content: "" }),
          });
        });
        await ctx.tool.hook("execute.after", (event) => {
          if (event.status === "completed" && event.tool === "json") event.result = { output: { n: 1 }, content: [] };
        });
      },
      script({ toolCalls: [{ name: "long", input: {} }] }, { toolCalls: [{ name: "json", input: {} }] }),
    );
    const session = host.createSession();
    await host.prompt(session, "hello");
    const [, long, json] = host.history(session);
    const content =
      long?.type === "assistant" && long.tools[0]?.state.status === "completed" ? long.tools[0].state.content : [];
    expect(content).toHaveLength(2);
    expect((content[0] as { text: string }).text.split("\n")).toHaveLength(2000);
    expect((content[1] as { text: string }).text).toMatch(/^\[showing lines 1-2000 of 2500; full output saved to /);
    expect(host.requests(session)[1]?.messages.at(-1)?.content[0]).toMatchObject({ result: { type: "content" } });
    expect(json).toMatchObject({ tools: [{ state: { content: [{ type: "text", text: '{"n":1}' }] } }] });
  });

  test("only codemode:false tools are offered; another is not callable directly", async () => {
    const calls: unknown[] = [];
    const host = await start(
      async (ctx) => {
        await ctx.tool.transform((editor) => {
          editor.add({
            name: "direct",
            description: "d",
            input: { type: "object" },
            options: { codemode: false },
            execute: async (input) => {
              calls.push(input);
              return { content: "direct ran" };
            },
          });
          editor.add({
            name: "hidden",
            description: "h",
            input: { type: "object" },
            execute: async (input) => {
              calls.push(input);
              return { content: "hidden ran" };
            },
          });
        });
      },
      script(
        { toolCalls: [{ name: "hidden", input: { x: 1 } }] },
        { toolCalls: [{ name: "direct", input: { y: 2 } }] },
      ),
    );
    const session = host.createSession();
    await host.prompt(session, "hello");
    const requests = host.requests(session);
    expect(Object.keys(requests[0]?.tools ?? {}).sort()).toEqual(["direct", "edit", "read", "shell", "write"]);
    expect(requests[1]?.messages.at(-1)?.content[0]).toMatchObject({
      name: "hidden",
      result: { type: "error", value: expect.stringContaining('No tool named "hidden"') },
    });
    expect(calls).toEqual([{ y: 2 }]);
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

describe("the simulated OpenCode 2 scenario driver", () => {
  test("runs a plugin in a temp project with isolated config folders, scripts the model, normalizes the requests", async () => {
    const before = { HOME: process.env.HOME, XDG: process.env.XDG_CONFIG_HOME, OCD: process.env.OPENCODE_CONFIG_DIR };
    const atSetup: Array<Record<string, unknown>> = [];
    let storageFails: boolean | undefined;
    const fake = {
      id: "fake-rulebook",
      setup: async (ctx: PluginContext) => {
        atSetup.push({
          options: ctx.options,
          home: process.env.HOME,
          xdg: process.env.XDG_CONFIG_HOME,
          ocd: process.env.OPENCODE_CONFIG_DIR,
        });
        storageFails = await ctx.storage?.get("x").then(
          () => false,
          () => true,
        );
        const rules = join(ctx.location?.directory ?? "", ".opencode/rules");
        await ctx.session.hook("context", async (event) => {
          event.system.push({ type: "text", text: `rules: ${(await readdir(rules)).sort().join(",")}` });
        });
        await ctx.tool.transform((editor) =>
          editor.add({
            name: "rule",
            description: "a rule",
            input: { type: "object" },
            options: { codemode: false },
            execute: async (input) => ({ content: `RULE ${(input as { name: string }).name}` }),
          }),
        );
      },
    };
    const driver = simulatedOpenCode2WithPlugin(fake);
    await driver.start({
      projectRules: { "a.md": "A" },
      projectFiles: { "src/x.ts": "X" },
      pluginOptions: { debug: true },
      failingClient: true,
    });
    let stopped = false;
    cleanups.push(async () => {
      if (!stopped) await driver.stop();
    });
    const project = driver.projectPath("");
    const [setupSeen] = atSetup;
    expect(setupSeen).toMatchObject({ options: { debug: true } });
    for (const key of ["home", "xdg", "ocd"]) {
      expect(setupSeen?.[key]).not.toBe(before[key === "home" ? "HOME" : key === "xdg" ? "XDG" : "OCD"]);
      expect(await readdir(String(setupSeen?.[key]))).toEqual([]);
    }
    expect(storageFails).toBe(true);

    const session = await driver.newSession();
    const seen = await driver.turn(session, "hi", [
      { read: "src/x.ts" },
      { rule: "a" },
      { write: "out.txt", content: "O" },
      { answer: "done" },
    ]);
    expect(seen).toHaveLength(4);
    expect(seen[0]?.messages).toEqual([
      { role: "system", text: `${SYSTEM_PROMPT}\nrules: a.md` },
      { role: "user", text: "hi" },
    ]);
    expect(seen[1]?.messages.slice(1)).toEqual([
      { role: "user", text: "hi" },
      { role: "assistant", text: '[tool-call read {"path":"src/x.ts"}]' },
      { role: "tool", text: "X" },
    ]);
    expect(seen[2]?.messages.at(-1)).toEqual({ role: "tool", text: "RULE a" });
    expect(seen[3]?.messages.at(-1)).toEqual({ role: "tool", text: "Wrote out.txt" });
    expect(readFileSync(driver.projectPath("out.txt"), "utf8")).toBe("O");

    expect(await driver.turn(session, "again")).toHaveLength(1);
    await driver.writeRule("b.md", "B");
    const compacted = await driver.compactThenTurn(session, "after");
    expect(compacted).toHaveLength(1);
    expect(compacted[0]?.messages[0]?.text).toContain("rules: a.md,b.md");
    expect(compacted[0]?.messages.slice(1).map((message) => message.role)).toEqual(["user", "user"]);
    expect(compacted[0]?.messages[1]?.text).toContain("SUMMARY-1");
    expect(compacted[0]?.messages[2]?.text).toBe("after");

    await driver.stop();
    stopped = true;
    expect({ HOME: process.env.HOME, XDG: process.env.XDG_CONFIG_HOME, OCD: process.env.OPENCODE_CONFIG_DIR }).toEqual(
      before,
    );
    expect(existsSync(project)).toBe(false);
  });
});
