/**
 * A simulated OpenCode 2 host for tests: it loads a Promise plugin the way
 * OpenCode 2 does, hands it the `PluginContext` subset declared in
 * `src/hosts/opencode-2/api.ts`, and runs sessions through an agent loop
 * whose model is a test-supplied `responder`. Each part names the OpenCode 2
 * behaviour it follows (source read in `zjdCander/opencode@1066927`, see
 * /work/notes/v2-facts.md); it keeps only what the rulebook's adapter can see.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type * as V2 from "../../src/hosts/opencode-2/api.js";
import {
  type CallBase,
  type Finished,
  type HostRevision,
  type PluginTool,
  REVISIONS,
  type ToolState,
} from "./opencode-2-revisions.js";
import { rpcRegistry } from "./opencode-2-rpc.js";

export type { HostRevision, ToolState };

export const SYSTEM_PROMPT = "You are the simulated OpenCode 2 agent.";
export const SIM_MODEL = { providerID: "sim", id: "sim-model" } as const;
export const MAX_STEPS = 25;
const LOAD_ERROR = "Plugin must export a default definition with an id and an effect or setup function.";

/** The model's answer at one step: text, tool calls, or both. */
export interface ModelReply {
  text?: string;
  toolCalls?: Array<{ name: string; input: unknown }>;
}

/** One model request as it left the host: after the `context` hooks. `error`: a hook threw, the model was never asked. */
export interface ModelRequest {
  sessionID: string;
  agent: string;
  model: { providerID: string; id: string };
  system: Array<{ type: "text"; text: string }>;
  messages: V2.LlmMessage[];
  tools: Record<string, { description: string; input: Record<string, unknown> }>;
  error?: string;
}

export type Responder = (request: ModelRequest, sessionID: string) => ModelReply | Promise<ModelReply>;

/** Stored session messages (`packages/schema/src/session-message.ts`, the kinds simulated). */
export type HistoryEntry =
  | { type: "user"; id: string; text: string; files?: V2.SessionPrompt["prompt"]["files"] }
  | {
      type: "assistant";
      id: string;
      text: string;
      tools: Array<{ id: string; name: string; input: unknown; state: ToolState }>;
    }
  | { type: "checkpoint"; id: string; summary: string };

export interface SimulatedHostOptions {
  /** The plugin module's default export, decoded as OpenCode 2 does. */
  plugin: unknown;
  options?: Record<string, unknown>;
  directory: string;
  /** `ctx.location.project.directory`; the directory when absent (a git-less project). */
  projectDirectory?: string;
  responder: Responder;
  /** `ctx.session.get` and every `ctx.storage` call reject. */
  failing?: boolean;
  /** Which OpenCode 2 the host is (`opencode-2-revisions.ts`); 2.0.26 when absent. */
  revision?: HostRevision;
}

export interface SimulatedHost {
  createSession(input?: { parentID?: string; agent?: string; model?: { providerID: string; id: string } }): string;
  deleteSession(sessionID: string): void;
  /**
   * `SessionApi.switchAgent` (what Tab does): the session's requests from the
   * next step on are this agent's. With `info: "kept"` the session's stored
   * info (`ctx.session.get`) still names the agent it had: the source does not
   * settle when the stored info follows a switch, so a plugin must take the
   * request's agent first.
   */
  switchAgent(sessionID: string, agent: string, options?: { info?: "kept" }): void;
  /** Resolves when the turn that took this input is over; rejects when a `prompt` hook throws or the turn fails. */
  prompt(
    sessionID: string,
    text: string,
    options?: { delivery?: "steer" | "queue"; files?: V2.SessionPrompt["prompt"]["files"] },
  ): Promise<void>;
  compact(sessionID: string): Promise<void>;
  requests(sessionID?: string): ModelRequest[];
  history(sessionID: string): HistoryEntry[];
  /** OpenCode restarts: the plugin unloads and loads again; sessions, their history and the plugin's storage remain. */
  restart(): Promise<void>;
  /** The keys the plugin's storage holds. */
  storedKeys(): string[];
  /** Plugin tool calls whose `execute` threw: each crashed its model step (`packages/core/src/tool.ts`: a defect, not a tool error). */
  crashedSteps(): string[];
  /** Session executions that failed before their model request: a plugin tool's schema the revision could not convert (`session.execution.failed`). */
  failedExecutions(): string[];
  /** A terminal UI's RPC call to a server plugin (`POST rpc.call`): its output, or a rejection with an `RpcFailure`. */
  rpcCall(rpcID: string, method: string, input: unknown): Promise<unknown>;
  /** A terminal UI's event stream (`event.subscribe`): every event, RPC events included; returns the unsubscribe. */
  onEvent(listener: (event: V2.HostEvent) => void): () => void;
  stop(): Promise<void>;
}

type Hook = (event: never) => Promise<void> | void;
type Deferred = { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void };
type InboxItem = {
  id: string;
  text: string;
  files?: V2.SessionPrompt["prompt"]["files"];
  delivery: "steer" | "queue";
  done: Deferred;
};
/** `agent`: the agent the session's requests run as; `info.agent`: what its stored info says. */
type SimSession = {
  info: V2.SessionInfo;
  agent: string;
  history: HistoryEntry[];
  inbox: InboxItem[];
  deleted: boolean;
  running: boolean;
  compactions: number;
};
type Subscriber = { queue: V2.HostEvent[]; wake?: () => void; closed: boolean };
/** A built-in tool: it answers with its text, in the revision's shape. */
type BuiltIn = {
  name: string;
  description: string;
  input: Record<string, unknown>;
  text(args: unknown): Promise<string>;
};
/** A registry entry: a built-in, or what a plugin handed over (which may be nothing usable). */
type Registered = { builtin: BuiltIn; plugin?: undefined } | { builtin?: undefined; plugin: PluginTool | undefined };

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
let lastMs = 0;
let counter = 0;

/** `packages/schema/src/identifier.ts` `create`: 12 hex digits of (ms * 0x1000 + counter) (low 48 bits), then 14 random base62; ascending within the process. */
export function ascendingId(prefix: string): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    counter = 0;
  }
  counter++;
  const time = ((BigInt(now) * 0x1000n + BigInt(counter)) & 0xffffffffffffn).toString(16).padStart(12, "0");
  let random = "";
  for (let i = 0; i < 14; i++) random += BASE62[Math.floor(Math.random() * 62)];
  return `${prefix}_${time}${random}`;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Only a tool with `codemode: false` is offered to the model directly; any other only inside the code tool (`packages/core/src/tool.ts` `snapshot`). */
const direct = (tool: PluginTool | undefined) =>
  (tool?.options as { codemode?: unknown } | undefined)?.codemode === false;

/** An Error's (or `Tool.Error`'s) message. */
const message = (error: unknown) =>
  typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string"
    ? (error as { message: string }).message
    : String(error);

/** `packages/core/src/tool-output.ts` `truncate`: past 2,000 lines or 50 KiB the head is kept and a marker item appended. */
function truncate(content: V2.ToolContent[], metadata: Record<string, unknown> | undefined): V2.ToolContent[] {
  if (metadata?.truncated !== undefined) return content;
  const text = content.flatMap((item) => (item.type === "text" ? [item.text] : [])).join("\n");
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  if (lines.length <= 2000 && Buffer.byteLength(text) <= 50 * 1024) return content;
  const kept: string[] = [];
  let bytes = 0;
  for (const line of lines.slice(0, 2000)) {
    const size = Buffer.byteLength(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + size > 50 * 1024) break;
    kept.push(line);
    bytes += size;
  }
  // OpenCode saves the full text to that file (the simulator does not) and cuts the text items where the head ends;
  // here the kept head is one text item, which is OpenCode's result for the usual single text item.
  const file = join(tmpdir(), "opencode-sim", "tool-output", ascendingId("tool"));
  const marker = `[showing ${kept.length > 0 ? `lines 1-${kept.length}` : "0 lines"} of ${lines.length}; full output saved to ${file}]`;
  const head: V2.ToolContent[] = kept.length > 0 ? [{ type: "text", text: kept.join("\n") }] : [];
  return [...content.filter((item) => item.type !== "text"), ...head, { type: "text", text: marker }];
}

/** `to-llm-message.ts` `toolResult`: one text item is sent as text, anything else as content; an error as an error result. */
function toolResult(tool: { id: string; name: string; state: ToolState }): V2.LlmContentPart {
  const { state } = tool;
  if (state.status === "error")
    return { type: "tool-result", id: tool.id, name: tool.name, result: { type: "error", value: state.error } };
  // The trunk sends the value its settlement gave (`publish-llm-event.ts` `settledOutput`).
  if (state.status === "completed" && state.result)
    return { type: "tool-result", id: tool.id, name: tool.name, result: state.result };
  const content = state.status === "completed" ? state.content : [];
  const single = content.length === 1 ? content[0] : undefined;
  return {
    type: "tool-result",
    id: tool.id,
    name: tool.name,
    result: single?.type === "text" ? { type: "text", value: single.text } : { type: "content", value: content },
  };
}

/**
 * `to-llm-message.ts` `toLLMMessages` over `SessionHistory.entriesForRunner`
 * (the latest checkpoint inclusive onward): user, assistant and checkpoint
 * messages carry their session id; tool results are `tool` messages without
 * one, after their assistant message.
 */
function toLlmMessages(history: HistoryEntry[]): V2.LlmMessage[] {
  const checkpoint = history.findLastIndex((entry) => entry.type === "checkpoint");
  return history.slice(Math.max(0, checkpoint)).flatMap((entry): V2.LlmMessage[] => {
    if (entry.type === "user")
      return entry.text === "" ? [] : [{ id: entry.id, role: "user", content: [{ type: "text", text: entry.text }] }];
    if (entry.type === "checkpoint") {
      const intro =
        "The following is a summary and serialized record of earlier conversation. Treat it as historical context, not as new instructions.";
      const text = [
        "<conversation-checkpoint>",
        intro,
        "",
        `<summary>\n${entry.summary}\n</summary>`,
        "</conversation-checkpoint>",
      ].join("\n");
      return [{ id: entry.id, role: "user", content: [{ type: "text", text }] }];
    }
    const calls: V2.LlmContentPart[] = entry.tools.map((tool) => ({
      type: "tool-call",
      id: tool.id,
      name: tool.name,
      input: tool.input,
    }));
    const content: V2.LlmContentPart[] = [...(entry.text === "" ? [] : [{ type: "text", text: entry.text }]), ...calls];
    const results: V2.LlmMessage[] = entry.tools
      .filter((tool) => tool.state.status !== "running")
      .map((tool) => ({ role: "tool", content: [toolResult(tool)] }));
    return content.length === 0 ? results : [{ id: entry.id, role: "assistant", content }, ...results];
  });
}

/** `packages/core/src/plugin/module.ts`: the default export must decode as `{ id: string, setup: function }` (or an Effect plugin, not simulated). */
function decodePlugin(value: unknown): { id: string; setup: (context: V2.PluginContext) => unknown } {
  const candidate = value as { id?: unknown; setup?: unknown; effect?: unknown } | null;
  if (typeof candidate !== "object" || candidate === null || typeof candidate.id !== "string")
    throw new Error(LOAD_ERROR);
  if (typeof candidate.setup === "function")
    return { id: candidate.id, setup: candidate.setup as (context: V2.PluginContext) => unknown };
  if (typeof candidate.effect === "function") throw new Error("The simulated host runs Promise plugins (setup) only.");
  throw new Error(LOAD_ERROR);
}

export async function startSimulatedHost(input: SimulatedHostOptions): Promise<SimulatedHost> {
  // The decoded Struct keeps only `id` and `setup` (extra keys such as V1's `server` are dropped).
  const plugin = decodePlugin(input.plugin);
  const { directory, responder } = input;
  const revision = REVISIONS[input.revision ?? "2.0.26"];
  const sessions = new Map<string, SimSession>();
  const recorded: ModelRequest[] = [];
  const hooks = new Map<string, Set<{ callback: Hook }>>();
  const registrations = new Set<V2.Registration>();
  const transforms = new Set<{ callback: (editor: V2.ToolEditor) => void }>();
  const subscribers = new Set<Subscriber>();
  const uiListeners = new Set<(event: V2.HostEvent) => void>();
  const crashes: string[] = [];
  const failedExecutions: string[] = [];
  const store = new Map<string, string>();
  const abort = new AbortController();
  let registry = new Map<string, Registered>();
  let callCounter = 0;
  let stopped = false;

  /** `packages/core/src/plugin/hooks.ts` `trigger`: callbacks in registration order, each awaited, on one mutable event; a throw fails the caller. */
  async function trigger<E>(key: string, event: E): Promise<E> {
    for (const entry of [...(hooks.get(key) ?? [])])
      await (entry.callback as (event: E) => Promise<void> | void)(event);
    return event;
  }

  function registration(remove: () => void): Promise<V2.Registration> {
    const handle: V2.Registration = {
      dispose: async () => {
        remove();
        registrations.delete(handle);
      },
    };
    registrations.add(handle);
    return Promise.resolve(handle);
  }

  function register(key: string, callback: Hook): Promise<V2.Registration> {
    const entry = { callback };
    hooks.set(key, (hooks.get(key) ?? new Set()).add(entry));
    return registration(() => hooks.get(key)?.delete(entry));
  }

  /** Built-in tools, offered directly, each answering with its text. The read tool's input names the path `path`. */
  const builtIns: BuiltIn[] = [
    {
      name: "read",
      description: "Reads a file.",
      input: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      text: async (args) => readFile(resolve(directory, (args as { path: string }).path), "utf8"),
    },
    {
      name: "write",
      description: "Writes a file.",
      input: {
        type: "object",
        properties: { path: { type: "string" }, content: { type: "string" } },
        required: ["path", "content"],
      },
      text: async (args) => {
        const { path, content } = args as { path: string; content: string };
        await mkdir(dirname(resolve(directory, path)), { recursive: true });
        await writeFile(resolve(directory, path), content);
        return `Wrote ${path}`;
      },
    },
    {
      name: "edit",
      description: "Replaces text in a file.",
      input: {
        type: "object",
        properties: { path: { type: "string" }, oldString: { type: "string" }, newString: { type: "string" } },
        required: ["path", "oldString", "newString"],
      },
      text: async (args) => {
        const { path, oldString, newString } = args as { path: string; oldString: string; newString: string };
        const before = await readFile(resolve(directory, path), "utf8");
        if (!before.includes(oldString)) throw new Error(`oldString not found in ${path}`);
        await writeFile(resolve(directory, path), before.replace(oldString, newString));
        return `Edited ${path}`;
      },
    },
    {
      // Current 2.x cores name it `shell` (earlier ones `bash`), input `{ command, workdir?, timeout?, background? }`.
      name: "shell",
      description: "Runs a shell command in the project.",
      input: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
      text: async (args) => {
        const { command } = args as { command: string };
        return new Promise<string>((done) =>
          execFile("sh", ["-c", command], { cwd: directory, timeout: 10_000 }, (error, stdout, stderr) =>
            done(`${stdout}${stderr}${error ? `\n(exit ${error.code ?? "?"})` : ""}`),
          ),
        );
      },
    },
  ];

  /**
   * `packages/core/src/tool.ts` state: the registry is rebuilt from every
   * transform when one is added or removed (tool id = name with
   * `[^a-zA-Z0-9_-]` → `_`); a tool the revision does not accept is skipped.
   */
  function rebuildTools(): void {
    const tools = new Map<string, Registered>(builtIns.map((tool) => [tool.name, { builtin: tool }]));
    const editor = revision.editor((name, tool) => {
      if (revision.accepts(tool))
        tools.set(name.replace(/[^a-zA-Z0-9_-]/g, "_"), { plugin: tool === undefined ? undefined : { ...tool } });
    });
    for (const transform of transforms) transform.callback(editor as V2.ToolEditor);
    registry = tools;
  }
  rebuildTools();

  /** Events reach subscribers later, never awaited by the host (`Bus.publish` → the plugin's stream). */
  function emit(type: string, data: Record<string, unknown>): void {
    const event: V2.HostEvent & { id: string; created: number } = {
      id: ascendingId("evt"),
      created: Date.now(),
      type,
      data,
    };
    for (const subscriber of subscribers)
      setImmediate(() => {
        if (subscriber.closed) return;
        subscriber.queue.push(structuredClone(event));
        subscriber.wake?.();
      });
    for (const listener of uiListeners)
      setImmediate(() => uiListeners.has(listener) && listener(structuredClone(event)));
  }
  const rpc = rpcRegistry(emit);

  function close(subscriber: Subscriber): void {
    subscriber.closed = true;
    subscribers.delete(subscriber);
    subscriber.wake?.();
  }

  function unavailable(): void {
    if (input.failing) throw new Error("simulated OpenCode 2: the host call failed");
  }

  function live(sessionID: string): SimSession {
    const session = sessions.get(sessionID);
    if (!session || session.deleted) throw new Error(`Session not found: ${sessionID}`);
    return session;
  }

  // Every part 2.0.26 has; the revision hands over the ones it has (`opencode-2-revisions.ts`).
  const ctx = revision.context({
    options: structuredClone(input.options ?? {}),
    location: { directory, project: { directory: input.projectDirectory ?? directory } },
    session: {
      hook: (name: string, callback: Hook) => register(`session.${name}`, callback),
      get: async ({ sessionID }) => {
        unavailable();
        return structuredClone(live(sessionID).info);
      },
    },
    tool: {
      hook: (name: string, callback: Hook) => register(`tool.${name}`, callback),
      // `transform` callbacks are synchronous and replayable: run now (a throw rejects), replayed on every rebuild.
      transform: async (callback) => {
        const entry = { callback };
        const remove = () => {
          transforms.delete(entry);
          rebuildTools();
        };
        transforms.add(entry);
        try {
          rebuildTools();
        } catch (error) {
          remove();
          throw error;
        }
        return registration(remove);
      },
    },
    event: {
      // `packages/client/src/shared-events.ts` `subscribe`: buffered from the call, ended by the signal or the plugin's unload.
      subscribe: (options) => {
        const subscriber: Subscriber = { queue: [], closed: stopped };
        if (!stopped) subscribers.add(subscriber);
        if (options?.signal?.aborted) close(subscriber);
        options?.signal?.addEventListener("abort", () => close(subscriber), { once: true });
        return (async function* () {
          for (;;) {
            if (subscriber.closed) return;
            const next = subscriber.queue.shift();
            if (next) yield next;
            else await new Promise<void>((wake) => (subscriber.wake = wake));
          }
        })();
      },
    },
    // `packages/core/src/plugin/host.ts`: `rpc: Object.assign(rpc.client, { register })`; registrations end with the plugin.
    rpc: {
      register: (definition, handlers) =>
        rpc.register(definition, handlers, (handle) => {
          const dispose = handle.dispose;
          const tracked = Object.assign(handle, {
            dispose: async () => {
              await dispose();
              registrations.delete(tracked);
            },
          });
          registrations.add(tracked);
        }),
    },
    // `packages/core/src/plugin/host.ts` `storage`: JSON values, copied in and out.
    storage: {
      get: async (key) => {
        unavailable();
        const value = store.get(key);
        return value === undefined ? undefined : JSON.parse(value);
      },
      set: async (key, value) => {
        unavailable();
        const json = JSON.stringify(value);
        if (json === undefined) store.delete(key);
        else store.set(key, json);
      },
      remove: async (key) => {
        unavailable();
        store.delete(key);
      },
    },
  });

  /**
   * `packages/core/src/tool.ts` `snapshot().execute` → `executeTool` (2.0.26;
   * the trunk's `tool/registry.ts` `settleTool`): before hooks, execute, after
   * hooks, then what the hooks left is stored and sent, in the revision's shapes.
   */
  async function runTool(
    session: SimSession,
    messageID: string,
    call: { id: string; name: string; input: unknown },
    offered: Map<string, Registered>,
  ): Promise<ToolState> {
    const base = { sessionID: session.info.id, agent: session.agent, messageID, callID: call.id };
    let before: { tool: string; input: unknown };
    try {
      before = (await trigger(
        `tool.execute.before`,
        revision.before({ tool: call.name, ...base, input: call.input }),
      )) as { tool: string; input: unknown };
    } catch (error) {
      return { status: "error", error: message(error) };
    }
    const entry = offered.get(before.tool);
    if (!entry) {
      const known = registry.get(before.tool);
      const error =
        known?.builtin || direct(known?.plugin)
          ? `Tool is not available for this request: ${before.tool}`
          : `No tool named "${before.tool}" is currently available. Please use a tool from the available tool list.`;
      return { status: "error", error };
    }
    const made: CallBase = { tool: before.tool, ...base, input: before.input };
    let finished: Finished;
    if (entry.builtin) {
      // A built-in's failure is a typed tool error the hooks see.
      finished = await entry.builtin.text(before.input).then(
        (text) => revision.builtin(entry.builtin.name, text),
        (error: unknown) => ({ ok: false as const, error: message(error) }),
      );
    } else {
      try {
        finished = await revision.run(entry.plugin as PluginTool, before.input, {
          sessionID: session.info.id,
          signal: abort.signal,
        });
      } catch (error) {
        // A plugin's Promise `execute` that rejects is a defect: the model step crashes.
        crashes.push(`${before.tool}: ${message(error)}`);
        throw new Error(`model step crashed: tool ${before.tool} threw: ${message(error)}`);
      }
    }
    const after = revision.after(made, finished);
    try {
      await trigger("tool.execute.after", after);
    } catch (error) {
      return { status: "error", error: message(error) };
    }
    const state = revision.settled(after);
    // 2.0.26 cuts a long result after the hooks (`tool-output.ts`); the trunk bounded it before them.
    return state.status === "completed" && !state.result
      ? { ...state, content: truncate(state.content, state.metadata) }
      : state;
  }

  /**
   * `runner/llm.ts` `runStep`: builds the request from history, runs the
   * `context` hooks (awaited; a throw kills the request), asks the model and
   * runs its tool calls. Resolves whether the loop continues (tools were called).
   */
  async function runStep(session: SimSession): Promise<boolean> {
    // Each request converts every plugin tool's schema (2.0.26 did at registration and skipped a bad one; the trunk throws here, unguarded).
    const tools: ModelRequest["tools"] = {};
    try {
      for (const [name, entry] of registry) {
        if (entry.builtin) tools[name] = { description: entry.builtin.description, input: entry.builtin.input };
        else {
          const schema = revision.schema(entry.plugin);
          if (direct(entry.plugin))
            tools[name] = { description: String(entry.plugin?.description ?? ""), input: schema };
        }
      }
    } catch (error) {
      failedExecutions.push(`${session.info.id}: ${message(error)}`);
      throw new Error(`session execution failed: ${message(error)}`);
    }
    const offered = new Map([...registry].filter(([name]) => name in tools));
    const event: V2.SessionContext & { tools: ModelRequest["tools"] } = {
      sessionID: session.info.id,
      agent: session.agent,
      model: session.info.model ?? SIM_MODEL,
      system: [{ type: "text", text: SYSTEM_PROMPT }],
      messages: toLlmMessages(session.history),
      tools,
    };
    try {
      await trigger("session.context", event);
    } catch (error) {
      recorded.push({ ...structuredClone(event), error: message(error) });
      throw new Error(`model request failed: a context hook threw: ${message(error)}`);
    }
    const request: ModelRequest = structuredClone(event);
    recorded.push(request);
    const reply = await responder(structuredClone(request), session.info.id);
    const assistant: Extract<HistoryEntry, { type: "assistant" }> = {
      type: "assistant",
      id: ascendingId("msg"),
      text: reply.text ?? "",
      tools: [],
    };
    session.history.push(assistant);
    // A tool removed from the request's `tools` by a hook is not available for it.
    const available = new Map([...offered].filter(([name]) => name in event.tools));
    for (const call of reply.toolCalls ?? []) {
      const tool = {
        id: `call_${++callCounter}`,
        name: call.name,
        input: structuredClone(call.input),
        state: { status: "running" } as ToolState,
      };
      assistant.tools.push(tool);
      tool.state = await runTool(session, assistant.id, tool, available);
    }
    return assistant.tools.length > 0;
  }

  /** `session/inbox.ts` `promote`: every pending steer; at the idle boundary ("input") one queued item when no steer waits. */
  function promote(session: SimSession, scope: "input" | "steer"): InboxItem[] {
    const steers = session.inbox.filter((item) => item.delivery === "steer");
    const picked =
      steers.length > 0 || scope === "steer"
        ? steers
        : session.inbox.filter((item) => item.delivery === "queue").slice(0, 1);
    session.inbox = session.inbox.filter((item) => !picked.includes(item));
    for (const item of picked)
      session.history.push({
        type: "user",
        id: item.id,
        text: item.text,
        ...(item.files ? { files: item.files } : {}),
      });
    return picked;
  }

  /**
   * `runner/llm.ts` `drain`: steps run while tools are called; at each step
   * boundary pending steers join the history (and keep the loop going); at the
   * idle boundary the turn is over and one queued item starts the next turn.
   */
  async function drain(session: SimSession): Promise<void> {
    if (session.running) return;
    session.running = true;
    let turn: InboxItem[] = [];
    let continuing = false;
    let step = 0;
    const settle = (error?: unknown) => {
      for (const item of turn) error === undefined ? item.done.resolve() : item.done.reject(error);
      turn = [];
    };
    try {
      for (;;) {
        if (session.deleted || stopped) {
          turn.push(...session.inbox.splice(0));
          settle(new Error(`Session ${session.deleted ? "deleted" : "stopped"}: ${session.info.id}`));
          break;
        }
        if (!continuing && !session.inbox.some((item) => item.delivery === "steer")) {
          settle();
          if (session.inbox.length === 0) break;
        }
        const promoted = promote(session, continuing ? "steer" : "input");
        turn.push(...promoted);
        if (promoted.length > 0) step = 0;
        step++;
        try {
          continuing = (await runStep(session)) && step < MAX_STEPS;
        } catch (error) {
          settle(error);
          continuing = false;
        }
      }
    } catch (error) {
      settle(error);
    } finally {
      session.running = false;
    }
  }

  let cleanup: V2.Cleanup | undefined;
  const load = async () => {
    const setupResult = await plugin.setup(ctx);
    cleanup = typeof setupResult === "function" ? (setupResult as V2.Cleanup) : undefined;
  };
  /** Unload: the cleanup returned by `setup`, every registration disposed, event streams ended. */
  const unload = async () => {
    await cleanup?.();
    cleanup = undefined;
    for (const handle of [...registrations]) await handle.dispose();
    for (const subscriber of [...subscribers]) close(subscriber);
  };
  // A revision that tells plugins no location runs its project in the server's own folder (the trunk: `Location` is where `opencode serve` started).
  const startedIn = process.cwd();
  if (!("location" in ctx)) process.chdir(directory);
  try {
    await load();
  } catch (error) {
    process.chdir(startedIn);
    throw error;
  }

  return {
    createSession: (options = {}) => {
      const info: V2.SessionInfo = {
        id: ascendingId("ses"),
        ...(options.parentID ? { parentID: options.parentID } : {}),
        agent: options.agent ?? "build",
        ...(options.model ? { model: options.model } : {}),
      };
      sessions.set(info.id, {
        info,
        agent: info.agent ?? "build",
        history: [],
        inbox: [],
        deleted: false,
        running: false,
        compactions: 0,
      });
      const { id: sessionID, ...rest } = info;
      emit("session.created", { sessionID, ...rest });
      return info.id;
    },
    switchAgent: (sessionID, agent, options = {}) => {
      const session = live(sessionID);
      if (session.agent === agent) return;
      session.agent = agent;
      if (options.info !== "kept") session.info = { ...session.info, agent };
      emit("session.agent.selected", { sessionID, agent });
    },
    deleteSession: (sessionID) => {
      live(sessionID).deleted = true;
      emit("session.deleted", { sessionID });
    },
    /** `session/prompt.ts` `prepare`: the `prompt` hook runs once, before admission; its edits define the stored input; `messageID` is the message's id. */
    prompt: async (sessionID, text, options = {}) => {
      if (stopped) throw new Error("simulated OpenCode 2: the host is stopped");
      const session = live(sessionID);
      const event: V2.SessionPrompt = {
        sessionID,
        messageID: ascendingId("msg"),
        prompt: structuredClone({ text, ...(options.files ? { files: options.files } : {}) }),
        delivery: options.delivery ?? "steer",
      };
      // The trunk registers a `prompt` hook and never calls it.
      if (revision.fires("prompt")) await trigger("session.prompt", event);
      live(sessionID);
      const item: InboxItem = {
        id: event.messageID,
        text: event.prompt.text,
        delivery: event.delivery,
        done: deferred(),
        ...(event.prompt.files ? { files: event.prompt.files } : {}),
      };
      session.inbox.push(item);
      void drain(session);
      return item.done.promise;
    },
    /** A completed local compaction: a checkpoint message after which earlier history is no longer sent (no `compaction` hook is registered by the adapter, none runs). */
    compact: async (sessionID) => {
      const session = live(sessionID);
      if (session.running) throw new Error(`simulated OpenCode 2: session ${sessionID} is busy`);
      const summary = `SUMMARY-${++session.compactions}`;
      emit("session.compaction.started", { sessionID, reason: "manual", recent: "" });
      session.history.push({ type: "checkpoint", id: ascendingId("msg"), summary });
      emit("session.compaction.ended", { sessionID, reason: "manual", text: summary, recent: "" });
    },
    requests: (sessionID) =>
      structuredClone(recorded.filter((request) => sessionID === undefined || request.sessionID === sessionID)),
    history: (sessionID) => structuredClone(sessions.get(sessionID)?.history ?? []),
    restart: async () => {
      await unload();
      await load();
    },
    storedKeys: () => [...store.keys()],
    crashedSteps: () => [...crashes],
    failedExecutions: () => [...failedExecutions],
    rpcCall: (rpcID, method, input) => rpc.call(rpcID, method, input),
    onEvent: (listener) => {
      uiListeners.add(listener);
      return () => void uiListeners.delete(listener);
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      abort.abort();
      try {
        await unload();
      } finally {
        process.chdir(startedIn);
      }
    },
  };
}
