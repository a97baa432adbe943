/**
 * No callback OpenCode 2 calls may throw (issue 26): a throwing hook fails
 * the model request, a throwing tool `execute` crashes the model step, a
 * throwing terminal UI `setup` fails the plugin. Every callback the adapter
 * registers (hooks, the event handler, the tool transform, the tool's
 * `execute`, the RPC handler, the cleanup, and the terminal UI's `setup` and
 * slot render) is called with an engine whose every call fails, over a host
 * whose every call fails, with well-formed and malformed events.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import type { RunningRulebook } from "../../src/engine/rulebook.js";
import type {
  HostEvent,
  PluginContext,
  Registration,
  RpcDefinition,
  ToolEditor,
  ToolInfo,
} from "../../src/hosts/opencode-2/api.js";
import { panelService } from "../../src/hosts/opencode-2/panel-rpc.js";
import { RULE_TOOL_FAILED } from "../../src/hosts/opencode/rule-tool.js";
import { ruleToolAnswer } from "../../src/hosts/opencode-2/rule-tool-info.js";
import { registerHooks, setupRulebook } from "../../src/hosts/opencode-2/plugin.js";
import { rulesLedger } from "../../src/hosts/opencode-2/session-port.js";
import type { TuiContext } from "../../src/hosts/opencode-2/tui-panel.js";
import { createLogger, type LogLevel } from "../../src/log.js";
import tuiEntry from "../../src/tui.js";
import { type TempProject, tempProject } from "../support/fake-opencode.js";
import { createRoot, draw } from "../support/opentui-stand-in.js";

const boom = () => {
  throw new Error("simulated failure");
};
const rejecting = async () => boom();

/** An engine whose every call fails: at once (`sync`), or as a rejected promise. */
function failingEngine(how: "sync" | "async"): RunningRulebook {
  return new Proxy({} as RunningRulebook, { get: () => (how === "sync" ? boom : rejecting) });
}

interface Registered {
  hooks: Map<string, (event: unknown) => unknown>;
  transforms: Array<(editor: ToolEditor) => void>;
  rpc: Array<Record<string, (input: unknown) => Promise<unknown>>>;
}

/** A host whose every call fails, except the registrations the adapter needs to be reached at all. */
function failingHost(registered: Registered): PluginContext {
  const registration = (): Registration => ({ dispose: rejecting });
  return {
    options: {},
    location: { directory: "/nowhere" },
    session: {
      hook: async (name, callback) => {
        registered.hooks.set(`session.${name}`, callback as (event: unknown) => unknown);
        return registration();
      },
      get: rejecting,
    },
    tool: {
      hook: async (name, callback) => {
        registered.hooks.set(`tool.${name}`, callback as (event: unknown) => unknown);
        return registration();
      },
      transform: async (callback) => {
        registered.transforms.push(callback);
        return registration();
      },
    },
    event: {
      subscribe: () =>
        (async function* (): AsyncGenerator<HostEvent> {
          yield { type: "session.deleted", data: { sessionID: "ses_a" } };
          yield null as unknown as HostEvent;
          throw new Error("simulated stream failure");
        })(),
    },
    storage: { get: rejecting, set: rejecting, remove: rejecting },
    rpc: {
      register: async (_definition, handlers) => {
        registered.rpc.push(handlers);
        return { dispose: rejecting, events: { emit: rejecting } };
      },
    },
  };
}

/** Events as OpenCode sends them, and the malformed ones it must not crash on. */
const EVENTS: Record<string, unknown[]> = {
  "session.prompt": [
    {
      sessionID: "ses_a",
      messageID: "msg_1",
      prompt: { text: "Plan a migration", files: [{ uri: "file:///x.ts" }] },
      delivery: "steer",
    },
    null,
    {},
    { prompt: null },
  ],
  "session.context": [
    {
      sessionID: "ses_a",
      agent: "build",
      model: { providerID: "p", id: "m" },
      system: [],
      messages: [{ id: "msg_1", role: "user", content: [{ type: "text", text: "hi" }] }],
    },
    null,
    { sessionID: "ses_a" },
  ],
  "tool.execute.before": [{ tool: "read", sessionID: "ses_a", input: { path: "a.ts" } }, null],
  "tool.execute.after": [
    {
      tool: "read",
      sessionID: "ses_a",
      input: { path: "a.ts" },
      status: "completed",
      result: { content: [{ type: "text", text: "x" }] },
    },
    { tool: "read", sessionID: "ses_a", input: {}, status: "error", error: { message: "no" } },
    { status: "completed" },
    null,
  ],
};

let project: TempProject | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

describe("OpenCode 2: no callback the adapter registers throws", () => {
  for (const how of ["sync", "async"] as const) {
    test(`with an engine that fails ${how === "sync" ? "at once" : "asynchronously"} and a host that fails`, async () => {
      const lines: Array<[LogLevel, string]> = [];
      const log = createLogger(async (level, message) => void lines.push([level, message]), true);
      const registered: Registered = { hooks: new Map(), transforms: [], rpc: [] };
      const ctx = failingHost(registered);
      const panel = panelService(log);
      const ledger = rulesLedger(ctx.storage, log, panel.changed);
      const cleanup = await registerHooks(ctx, { rulebook: failingEngine(how), ledger, panel, log });

      expect([...registered.hooks.keys()].sort()).toEqual([
        "session.context",
        "session.prompt",
        "tool.execute.after",
        "tool.execute.before",
      ]);
      for (const [name, events] of Object.entries(EVENTS)) {
        const callback = registered.hooks.get(name);
        for (const event of events)
          await expect(Promise.resolve().then(() => callback?.(event))).resolves.toBeUndefined();
      }

      // The transform, with an editor that accepts the tool, and one that throws.
      const tools: ToolInfo[] = [];
      for (const transform of registered.transforms) {
        expect(() => transform({ add: (tool) => void tools.push(tool) })).not.toThrow();
        expect(() => transform({ add: boom })).not.toThrow();
      }
      expect(tools.map((tool) => tool.name)).toEqual(["rule"]);
      const signal = new AbortController().signal;
      await expect(tools[0]?.execute({ name: "security" }, { sessionID: "ses_a", signal })).resolves.toEqual(
        ruleToolAnswer(RULE_TOOL_FAILED),
      );
      await expect(
        tools[0]?.execute(undefined, { sessionID: undefined as unknown as string, signal }),
      ).resolves.toEqual(ruleToolAnswer(RULE_TOOL_FAILED));

      // The Rules panel's RPC handler answers, whatever it is asked.
      const [handlers] = registered.rpc;
      for (const input of [{ sessionID: "ses_a" }, null, { sessionID: 5 }])
        await expect(handlers?.panel?.(input)).resolves.toEqual({ markers: [] });

      await expect(cleanup()).resolves.toBeUndefined();
      expect(
        lines.some(
          ([level, message]) =>
            level === "error" && message.includes("Handling rule tool for session ses_a failed: simulated failure"),
        ),
      ).toBe(true);
      expect(
        lines.some(
          ([level, message]) => level === "error" && message.includes("Handling context for session ses_a failed"),
        ),
      ).toBe(true);
    });
  }

  test("setup itself: a host that refuses every registration, and one whose context is not what the API promises", async () => {
    project = await tempProject();
    const refusing = failingHost({ hooks: new Map(), transforms: [], rpc: [] });
    const everythingFails: PluginContext = {
      ...refusing,
      location: { directory: project.projectDir },
      session: { hook: rejecting, get: rejecting },
      tool: { hook: rejecting, transform: rejecting },
      event: { subscribe: boom },
      rpc: { register: rejecting },
    };
    const cleanup = await setupRulebook(everythingFails);
    expect(typeof cleanup).toBe("function");
    await expect(Promise.resolve(cleanup?.())).resolves.toBeUndefined();
    // Without the location OpenCode gives every plugin instance there is no project: nothing starts.
    await expect(setupRulebook(null as unknown as PluginContext)).resolves.toBeUndefined();
    await expect(setupRulebook({} as PluginContext)).resolves.toBeUndefined();
  });
});

describe("OpenCode 2: the terminal UI's setup never fails the terminal UI", () => {
  const panelDefinition = (seen: RpcDefinition[]) => (definition: RpcDefinition) => {
    seen.push(definition);
    return { panel: rejecting, events: { on: () => () => undefined } };
  };
  const theme = { text: { base: "b", muted: "m" } };

  test("a context that throws everywhere, or lacks what the panel needs: setup resolves, nothing registered", async () => {
    project = await tempProject();
    const throwing = { client: { rpc: boom }, theme, ui: { slot: boom } } as unknown as TuiContext;
    await expect(tuiEntry.setup(throwing)).resolves.toBeUndefined();
    await expect(
      tuiEntry.setup({ client: {}, theme, ui: { slot: boom } } as unknown as TuiContext),
    ).resolves.toBeUndefined();
    await expect(tuiEntry.setup(null as unknown as TuiContext)).resolves.toBeUndefined();
    // Said in the plugin's log, not on the terminal the UI draws on: the missing RPC client, and setup's failure once (the null context failed it again).
    const file = join(project.home, ".local", "share", "opencode", "log", "opencode-rulebook.log");
    await vi.waitFor(async () =>
      expect((await readFile(file, "utf8")).match(/no Rules panel|Handling setup failed/g)?.length).toBe(2),
    );
  });

  test("a server that does not answer: the block renders, empty and hidden, and its cleanup runs", async () => {
    project = await tempProject();
    const seen: RpcDefinition[] = [];
    let render: ((input: { sessionID: string }) => unknown) | undefined;
    const slot = (claim: { render: typeof render }) => {
      render = claim.render;
      return () => undefined;
    };
    const context = { client: { rpc: panelDefinition(seen) }, theme, ui: { slot } } as unknown as TuiContext;
    const cleanup = await tuiEntry.setup(context);
    expect(seen.map((definition) => definition.id)).toEqual(["opencode-rulebook"]);
    const drawn = createRoot((dispose) => ({ node: render?.({ sessionID: "ses_a" }), dispose }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(draw(drawn.node)).toEqual([]);
    drawn.dispose();
    expect(() => (cleanup as () => void)()).not.toThrow();
  });
});
