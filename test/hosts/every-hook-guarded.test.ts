/**
 * Issue 30: every hook the plugin gives OpenCode, called with missing or
 * malformed input and output, settles (never throws, never rejects), says
 * so in the log naming the hook, and says it once however often it is
 * called. The hooks are taken from what the plugin really returns or
 * registers, on both generations: a hook added later without the guard
 * fails here.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Hooks, PluginInput } from "@opencode-ai/plugin";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { PluginContext, RpcDefinition, ToolEditor, ToolInfo } from "../../src/hosts/opencode-2/api.js";
import entry from "../../src/index.js";
import { type TempProject, tempProject } from "../support/fake-opencode.js";
import { callMalformed, linesNaming } from "../support/malformed-calls.js";

type AnyHook = (...args: unknown[]) => unknown;

let project: TempProject;
beforeEach(async () => {
  project = await tempProject();
  await project.writeRule("project", "style.md", "Write small functions.\n");
});
afterEach(() => project.cleanup());

/** Calls every hook, `last` at the end (it stops the plugin), and checks the log for each: `quiet` ones take no input to fail on. */
async function checkEvery(
  hooks: Array<[string, AnyHook]>,
  names: Record<string, string>,
  lines: () => Promise<string[]>,
  options: { quiet: string[]; last: string[] },
) {
  const ordered = [
    ...hooks.filter(([key]) => !options.last.includes(key)),
    ...hooks.filter(([key]) => options.last.includes(key)),
  ];
  for (const [key, hook] of ordered) await callMalformed(key, hook);
  const logged = await lines();
  for (const [key] of hooks) {
    const name = names[key];
    expect(name, `the test knows no log name for the hook ${key}: add it to the table`).toBeDefined();
    const naming = linesNaming(logged, name as string);
    expect(naming.length, `log lines naming ${key} (as "${name}"):\n${naming.join("\n")}`).toBe(
      options.quiet.includes(key) ? 0 : 1,
    );
    if (!options.quiet.includes(key)) expect(naming[0]).toContain("said once");
  }
}

describe("OpenCode 1: every hook the plugin returns", () => {
  test("settles with missing and malformed input, and logs once naming the hook", async () => {
    const logs: string[] = [];
    const client = {
      app: {
        log: async ({ body }: { body: { level: string; message: string } }) =>
          void logs.push(`${body.level}: ${body.message}`),
      },
      session: {
        prompt: async () => ({ data: { info: { time: { created: 1 } } }, error: undefined, response: { status: 200 } }),
        messages: async () => ({ data: [], error: undefined, response: { status: 200 } }),
      },
    };
    const input = { client, directory: project.projectDir, worktree: project.projectDir } as unknown as PluginInput;
    const hooks: Hooks = await entry.server(input, {});
    const found: Array<[string, AnyHook]> = [];
    for (const [key, value] of Object.entries(hooks)) {
      if (typeof value === "function") found.push([key, value as AnyHook]);
      else if (key === "tool")
        for (const [name, tool] of Object.entries(value as NonNullable<Hooks["tool"]>))
          found.push([`tool.${name}.execute`, tool.execute as AnyHook]);
      else throw new Error(`a hook of a shape the test does not know: ${key}`);
    }
    expect(found.map(([key]) => key)).toContain("chat.message");
    const names = Object.fromEntries(found.map(([key]) => [key, key]));
    names["tool.rule.execute"] = "rule tool";
    const lines = async () => {
      // The log's lines reach the client a moment after they are written.
      await new Promise((resolve) => setTimeout(resolve, 20));
      return logs;
    };
    await checkEvery(found, names, lines, { quiet: ["dispose"], last: ["dispose"] });
    // Without what OpenCode gives every plugin, the plugin serves nothing and says nothing.
    await expect(entry.server(undefined as unknown as PluginInput, {})).resolves.toEqual({});
  });
});

describe("OpenCode 2: every hook and handler the plugin registers", () => {
  test("settles with missing and malformed input, and logs once naming the hook", async () => {
    const registered: Array<[string, AnyHook]> = [];
    /** Records a callback OpenCode would now call, and answers its registration. */
    const registration = async (key?: string, callback?: unknown) => {
      if (key) registered.push([key, callback as AnyHook]);
      return { dispose: async () => undefined };
    };
    const store = new Map<string, unknown>();
    const ctx: PluginContext = {
      options: {},
      location: { directory: project.projectDir },
      session: {
        hook: (name, callback) => registration(`session.${name}`, callback),
        get: async ({ sessionID }) => ({ id: sessionID }),
      },
      tool: {
        hook: (name, callback) => registration(`tool.${name}`, callback),
        transform: async (callback) => {
          registered.push(["tool transform", callback as AnyHook]);
          // The tools the transform offers, through an editor that takes them.
          callback({
            add: (tool: ToolInfo) => void registered.push([`tool ${tool.name} execute`, tool.execute as AnyHook]),
          } as ToolEditor);
          return registration();
        },
      },
      event: { subscribe: () => (async function* () {})() },
      storage: {
        get: async (key) => store.get(key),
        set: async (key, value) => void store.set(key, value),
        remove: async (key) => void store.delete(key),
      },
      rpc: {
        register: async (definition: RpcDefinition, handlers) => {
          for (const [method, handler] of Object.entries(handlers))
            registered.push([`rpc ${definition.id}.${method}`, handler as AnyHook]);
          return { dispose: async () => undefined, events: { emit: async () => undefined } };
        },
      },
    };
    const cleanup = await entry.setup(ctx);
    expect(typeof cleanup).toBe("function");
    registered.push(["cleanup", cleanup as AnyHook]);
    const names: Record<string, string> = {
      "session.prompt": "prompt",
      "session.context": "context",
      "tool.execute.before": "execute.before",
      "tool.execute.after": "execute.after",
      "tool transform": "rule tool offer",
      "tool rule execute": "rule tool",
      "rpc opencode-rulebook.panel": "Rules panel RPC",
      cleanup: "cleanup",
    };
    const logFile = join(project.home, ".local", "share", "opencode", "log", "opencode-rulebook.log");
    const lines = async () => (await readFile(logFile, "utf8")).split("\n");
    // The panel's RPC answers an empty panel to anything that names no session: nothing failed.
    await checkEvery(registered, names, lines, {
      quiet: ["cleanup", "rpc opencode-rulebook.panel"],
      last: ["cleanup"],
    });
    // Without what OpenCode gives every plugin instance, setup starts nothing.
    for (const context of [undefined, null, {}, { location: 5 }])
      await expect(entry.setup(context as unknown as PluginContext)).resolves.toBeUndefined();
  });
});
