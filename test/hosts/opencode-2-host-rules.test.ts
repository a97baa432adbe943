/**
 * The simulated OpenCode 2 host's rules added for issue 26, each checked
 * against a deliberate breakage with a tiny plugin: a server whose stdout
 * carries only its ready line, a terminal UI loader that decodes `./tui` as
 * `{ id, setup }`, a plugin tool whose `execute` throws crashing its step, a
 * session whose stored agent lags the request's, and plugin RPC.
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import type { HostEvent, PluginContext, RpcDefinition } from "../../src/hosts/opencode-2/api.js";
import { type SimulatedHost, startSimulatedHost } from "../support/opencode-2-host.js";
import { READY_LINE, runSimulatedServer, stdoutProblem } from "../support/opencode-2-server.js";
import { startSimulatedTui } from "../support/opencode-2-tui.js";
import { tempFolder } from "../support/temp-folder.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function scratch(): Promise<string> {
  const folder = await tempFolder("oc2-rules-");
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

async function start(
  setup: (ctx: PluginContext) => unknown,
  responder = () => ({ text: "ok" }) as object,
): Promise<SimulatedHost> {
  const host = await startSimulatedHost({ plugin: { id: "probe", setup }, directory: await scratch(), responder });
  cleanups.push(() => host.stop());
  return host;
}

describe("the server's stdout carries its ready line and nothing else", () => {
  test("the terminal UI's reading: the ready line first, nothing after", () => {
    expect(stdoutProblem(`${READY_LINE}\n`)).toBeUndefined();
    expect(stdoutProblem(`hello\n${READY_LINE}\n`)).toMatch(/^start failed/);
    expect(stdoutProblem("")).toMatch(/^start failed/);
    expect(stdoutProblem(`${READY_LINE}\nlate\n`)).toMatch(/^connection broken/);
  });

  test("a plugin that prints while loading fails the start; one that prints in a hook breaks the connection; a quiet one passes", {
    timeout: 60_000,
  }, async () => {
    const folder = await scratch();
    const plugins = {
      quiet: `export default { id: "quiet", setup() { console.error("stderr is the server's own"); } };`,
      loading: `export default { id: "loading", setup() { console.log("loaded!"); } };`,
      hooked: `export default { id: "hooked", async setup(ctx) { await ctx.session.hook("context", () => { process.stdout.write("x"); }); } };`,
    };
    const runs: Record<string, Awaited<ReturnType<typeof runSimulatedServer>>> = {};
    for (const [name, source] of Object.entries(plugins)) {
      const file = join(folder, `${name}.mjs`);
      await writeFile(file, source);
      runs[name] = await runSimulatedServer(
        { plugin: file, directory: folder, turns: [{ text: "Hello." }] },
        { HOME: folder },
      );
    }
    expect(runs.quiet?.problem).toBeUndefined();
    expect(runs.quiet?.stderr).toContain("stderr is the server's own");
    expect(runs.loading?.problem).toBe(
      `start failed: the server's first line on stdout is "loaded!", not its ready line`,
    );
    expect(runs.hooked?.problem).toBe(`connection broken: stdout carries more than the ready line: "x"`);
  });
});

describe("the terminal UI loads `./tui` as { id, setup }", () => {
  const host = () => start(() => undefined);

  test("OpenCode 1's { id, tui } and an empty id fail, with an error toast; extra keys are ignored; a throwing setup fails that plugin only", async () => {
    const simulated = await host();
    const load = async (module: { default?: unknown }) => {
      const tui = await startSimulatedTui(simulated, module, "probe");
      cleanups.push(() => tui.stop());
      return tui;
    };
    const v1 = await load({ default: { id: "probe", tui: () => undefined } });
    expect(v1.state).toEqual({ status: "failed", error: "Invalid V2 TUI plugin module: probe" });
    expect(v1.toasts).toEqual(["Plugin failed: probe"]);
    expect((await load({ default: { id: "", setup: () => undefined } })).state.status).toBe("failed");
    expect((await load({})).state.status).toBe("failed");
    let setups = 0;
    const both = await load({ default: { id: "probe", tui: () => undefined, setup: () => void setups++ } });
    expect(both.state).toEqual({ status: "active", id: "probe" });
    expect(both.toasts).toEqual([]);
    expect(setups).toBe(1);
    const throwing = await load({
      default: {
        id: "probe",
        setup: () => {
          throw new Error("setup boom");
        },
      },
    });
    expect(throwing.state).toEqual({ status: "failed", error: "setup boom" });
  });

  test("a slot claim needs exactly one placement key; its render gets the slot's input", async () => {
    const simulated = await host();
    const twoKeys = await startSimulatedTui(simulated, {
      default: {
        id: "probe",
        setup: (context: { ui: { slot: (claim: unknown) => void } }) =>
          context.ui.slot({ append: "sidebar.content", prepend: "sidebar.content", render: () => null }),
      },
    });
    expect(twoKeys.state).toEqual({ status: "failed", error: "Slot claim requires exactly one placement key" });
    const seen: unknown[] = [];
    const good = await startSimulatedTui(simulated, {
      default: {
        id: "probe",
        setup: (context: { ui: { slot: (claim: unknown) => void } }) =>
          context.ui.slot({ append: "sidebar.content", render: (input: unknown) => void seen.push(input) }),
      },
    });
    cleanups.push(() => good.stop());
    good.sidebar("ses_1");
    expect(seen).toEqual([{ sessionID: "ses_1" }]);
  });
});

describe("a plugin tool's execute that throws crashes the model step", () => {
  test("the turn fails and the crash is counted; a built-in tool's failure stays a tool error", async () => {
    let calls = 0;
    const host = await start(
      async (ctx) => {
        await ctx.tool.transform((editor) =>
          editor.add({
            name: "fragile",
            description: "throws",
            input: { type: "object" },
            options: { codemode: false },
            execute: async () => {
              throw new Error("execute boom");
            },
          }),
        );
      },
      () => (calls++ === 0 ? { toolCalls: [{ name: "fragile", input: {} }] } : { text: "done" }),
    );
    const session = host.createSession();
    await expect(host.prompt(session, "Use the tool.")).rejects.toThrow(
      "model step crashed: tool fragile threw: execute boom",
    );
    expect(host.crashedSteps()).toEqual(["fragile: execute boom"]);

    calls = 0;
    const other = await start(
      () => undefined,
      () => (calls++ === 0 ? { toolCalls: [{ name: "read", input: { path: "missing.txt" } }] } : { text: "done" }),
    );
    const session2 = other.createSession();
    await other.prompt(session2, "Read a missing file.");
    expect(other.crashedSteps()).toEqual([]);
    expect(other.history(session2)[1]).toMatchObject({ tools: [{ state: { status: "error" } }] });
  });
});

describe("a session's stored agent may lag the agent its requests run as", () => {
  test("with info kept, session.get names the stored agent while requests name the switched one; by default both follow", async () => {
    let ctx!: PluginContext;
    const host = await start((context) => {
      ctx = context;
    });
    const kept = host.createSession({ agent: "plan" });
    host.switchAgent(kept, "build", { info: "kept" });
    await host.prompt(kept, "Go.");
    expect(host.requests(kept)[0]?.agent).toBe("build");
    expect((await ctx.session.get({ sessionID: kept })).agent).toBe("plan");
    const followed = host.createSession({ agent: "plan" });
    host.switchAgent(followed, "build");
    await host.prompt(followed, "Go.");
    expect(host.requests(followed)[0]?.agent).toBe("build");
    expect((await ctx.session.get({ sessionID: followed })).agent).toBe("build");
  });
});

describe("plugin RPC", () => {
  const DEFINITION: RpcDefinition = {
    id: "probe",
    methods: {
      echo: {
        input: { type: "object", properties: { text: { type: "string", maxLength: 5 } }, required: ["text"] },
        output: { type: "object", required: ["echo"] },
      },
    },
    events: { poked: { schema: { type: "object", required: ["n"] } } },
  };

  test("calls reach the last registration by id; inputs and outputs are checked; a throwing handler is rpc.internal; events reach the terminal UI and plugin streams; unloading ends it", async () => {
    let answer: (input: unknown) => Promise<unknown> = async (input) => ({ echo: (input as { text: string }).text });
    let emit!: (name: string, data: Record<string, unknown>) => Promise<void>;
    const streamed: HostEvent[] = [];
    const host = await start(async (ctx) => {
      const registration = await ctx.rpc!.register(DEFINITION, { echo: (input) => answer(input) });
      emit = registration.events.emit;
      void (async () => {
        for await (const event of ctx.event.subscribe()) streamed.push(event);
      })();
    });
    await expect(host.rpcCall("probe", "echo", { text: "hi" })).resolves.toEqual({ echo: "hi" });
    await expect(host.rpcCall("nobody", "echo", { text: "hi" })).rejects.toEqual({
      type: "rpc.unavailable",
      message: "RPC is unavailable: nobody",
    });
    await expect(host.rpcCall("probe", "shout", {})).rejects.toMatchObject({ type: "rpc.method_not_found" });
    await expect(host.rpcCall("probe", "echo", { text: "too long" })).rejects.toMatchObject({
      type: "rpc.invalid_input",
    });
    await expect(host.rpcCall("probe", "echo", {})).rejects.toMatchObject({ type: "rpc.invalid_input" });
    answer = async () => ({ wrong: true });
    await expect(host.rpcCall("probe", "echo", { text: "hi" })).rejects.toMatchObject({ type: "rpc.invalid_output" });
    answer = async () => {
      throw new Error("handler boom");
    };
    await expect(host.rpcCall("probe", "echo", { text: "hi" })).rejects.toEqual({
      type: "rpc.internal",
      message: "RPC call failed",
    });

    const seen: HostEvent[] = [];
    host.onEvent((event) => seen.push(event));
    await emit("poked", { n: 1 });
    await expect(emit("unknown", {})).rejects.toThrow("Unknown RPC event: probe.unknown");
    await expect(emit("poked", {})).rejects.toThrow("Invalid RPC event");
    await vi.waitFor(() =>
      expect(seen.map((event) => [event.type, event.data])).toEqual([["rpc.probe.poked", { n: 1 }]]),
    );
    await vi.waitFor(() => expect(streamed.map((event) => event.type)).toContain("rpc.probe.poked"));

    await host.restart();
    answer = async () => ({ echo: "again" });
    await expect(host.rpcCall("probe", "echo", { text: "hi" })).resolves.toEqual({ echo: "again" });
    await host.stop();
    await expect(host.rpcCall("probe", "echo", { text: "hi" })).rejects.toMatchObject({ type: "rpc.unavailable" });
  });
});
