/**
 * The plugin driven the way OpenCode 1.x drives it: only through its public
 * entry (`default.server(input, options)`, OpenCode 1 → hooks), with a stand-in for the
 * `@opencode-ai/sdk` client that answers at once, without a network. Nothing
 * here imports the plugin's internals, so an engine rewrite does not break it.
 *
 * Which build is measured: `--entry=<path>` (a module exporting
 * its OpenCode 1 `server`), `--src` for `src/index.ts` through tsx, else `dist/index.js`.
 */
import type { Hooks, Plugin } from "@opencode-ai/plugin";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BenchProject } from "./fixtures.js";

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Key of the plugin's marker in a rules part's metadata (what OpenCode stores with the message). */
export const MARKER_KEY = "opencode-rulebook";

export function pluginEntry(argv: readonly string[] = process.argv): string {
  const given = argv.find((arg) => arg.startsWith("--entry="))?.slice("--entry=".length);
  if (given) return resolve(given);
  return join(REPO, argv.includes("--src") ? "src/index.ts" : "dist/index.js");
}

export async function loadPlugin(entry: string): Promise<Plugin> {
  const module = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
  // The entry's default export carries OpenCode 1's plugin as `server`.
  const plugin = (module.default as { server?: unknown } | undefined)?.server;
  if (typeof plugin !== "function") throw new Error(`${entry} exports no plugin`);
  return plugin as Plugin;
}

/** Counts what the plugin asked of OpenCode. */
export interface ClientCalls {
  prompts: number;
  histories: number;
  logs: string[];
}

/** An OpenCode client whose calls answer at once, with data shaped like OpenCode's. */
export function fakeClient(): { client: unknown; calls: ClientCalls } {
  const calls: ClientCalls = { prompts: 0, histories: 0, logs: [] };
  let clock = Date.now();
  const client = {
    session: {
      prompt: async (options: { path: { id: string } }) => {
        calls.prompts++;
        const info = {
          id: `msg_bench${calls.prompts}`,
          sessionID: options.path.id,
          role: "user",
          time: { created: ++clock },
        };
        return { data: { info, parts: [] }, request: {}, response: { status: 200 } };
      },
      messages: async () => {
        calls.histories++;
        return { data: [], request: {}, response: { status: 200 } };
      },
    },
    app: {
      log: async (options: { body?: { level?: string; message?: string } }) => {
        calls.logs.push(`${options.body?.level}: ${options.body?.message}`);
        // The plugin's errors would otherwise go unseen: the first few go to stderr.
        if (options.body?.level === "error" && calls.logs.length <= 5)
          process.stderr.write(`  plugin error: ${options.body.message}\n`);
        return { data: true, request: {}, response: { status: 200 } };
      },
    },
  };
  return { client, calls };
}

/** Calls the plugin's initializer as OpenCode does; resolves to its hooks. */
export async function startPlugin(
  plugin: Plugin,
  bench: BenchProject,
  client: unknown,
  options: Record<string, unknown> = {},
): Promise<Hooks> {
  const input = {
    client,
    directory: bench.project,
    worktree: bench.project,
    project: { id: "bench", worktree: bench.project, time: { created: 0 } },
    serverUrl: new URL("http://127.0.0.1:4096"),
    experimental_workspace: { register() {} },
    $: undefined,
  };
  const hooks = await plugin(input as never, options);
  // The plugin answers a failed start with no hooks (the session goes on without it): a benchmark of nothing.
  if (typeof hooks["chat.message"] !== "function" || typeof hooks.event !== "function")
    throw new Error("the plugin returned no hooks: it could not start (see its errors above)");
  return hooks;
}

export async function stopPlugin(hooks: Hooks): Promise<void> {
  await (hooks as { dispose?: () => Promise<void> }).dispose?.();
}

const MODEL = { providerID: "bench", modelID: "model" };
/** What the `read` tool returns before the plugin adds anything. */
export const READ_OUTPUT = "<file>\n00001| export const value = 1;\n</file>";
let partClock = Date.now() * 0x1000;

/** One session of the plugin, as OpenCode's hooks see it. */
export class BenchSession {
  private messages = 0;
  private calls = 0;

  constructor(
    private readonly hooks: Hooks,
    readonly id: string,
  ) {}

  /** `session.created`. OpenCode does not await event hooks: neither does this; the promise is returned for cleanup. */
  created(): Promise<void> {
    const now = Date.now();
    const info = {
      id: this.id,
      projectID: "bench",
      directory: "/",
      title: "bench",
      version: "1",
      time: { created: now, updated: now },
    };
    return this.hooks.event!({ event: { type: "session.created", properties: { info } } as never });
  }

  /** A user message through `chat.message`; resolves to the parts as the hook left them. */
  async userMessage(text: string): Promise<Array<{ text?: string; metadata?: Record<string, unknown> }>> {
    const messageID = `msg_user${String(++this.messages).padStart(6, "0")}`;
    const part = {
      id: `prt_${(partClock++).toString(16).padStart(12, "0").slice(-12)}abcdefghijklmn`,
      sessionID: this.id,
      messageID,
      type: "text",
      text,
    };
    const output = {
      message: {
        id: messageID,
        sessionID: this.id,
        role: "user",
        time: { created: Date.now() },
        agent: "build",
        model: MODEL,
      },
      parts: [part],
    };
    await this.hooks["chat.message"]!({ sessionID: this.id, agent: "build", model: MODEL, messageID }, output as never);
    return output.parts as Array<{ text?: string; metadata?: Record<string, unknown> }>;
  }

  /** One `read` tool call (its output `text`): `tool.execute.before` then `tool.execute.after`; resolves to the tool output as the hook left it. */
  async read(filePath: string, text: string = READ_OUTPUT): Promise<string> {
    const callID = `call_${++this.calls}`;
    const args = { filePath };
    await this.hooks["tool.execute.before"]!({ tool: "read", sessionID: this.id, callID }, { args });
    const output = { title: filePath, output: text, metadata: {} };
    await this.hooks["tool.execute.after"]!({ tool: "read", sessionID: this.id, callID, args }, output);
    return output.output;
  }

  /** One `write` tool call: `tool.execute.before` (its check against the rules that forbid), then `tool.execute.after`. */
  async write(filePath: string, content: string): Promise<void> {
    const callID = `call_${++this.calls}`;
    const args = { filePath, content };
    await this.hooks["tool.execute.before"]!({ tool: "write", sessionID: this.id, callID }, { args });
    const output = { title: filePath, output: "Wrote file successfully.", metadata: {} };
    await this.hooks["tool.execute.after"]!({ tool: "write", sessionID: this.id, callID, args }, output);
  }
}

/** Whether a hook's parts carry the plugin's rules part. */
export function carriesRules(parts: ReadonlyArray<{ metadata?: Record<string, unknown> }>): boolean {
  return parts.some((part) => part.metadata?.[MARKER_KEY] !== undefined);
}
