/**
 * A simulated OpenCode 2 host for tests: it loads a Promise plugin the way
 * OpenCode 2 does, hands it the `PluginContext` subset declared in
 * `src/hosts/opencode-2/api.ts`, and runs sessions through an agent loop
 * whose model is a test-supplied `responder`. Each part names the OpenCode 2
 * behaviour it follows (source read in `zjdCander/opencode@1066927`, see
 * /work/notes/v2-facts.md); it keeps only what the rulebook's adapter can see.
 */
import type * as V2 from "../../src/hosts/opencode-2/api.js";
import type { LlmMessage } from "../../src/hosts/opencode-2/api-llm.js";
import { eventBus } from "./opencode-2-events.js";
import { ascendingId, type HistoryEntry } from "./opencode-2-history.js";
import { agentLoop, deferred, type InboxItem, type SimSession } from "./opencode-2-loop.js";
import { type HostRevision, REVISIONS, type ToolState } from "./opencode-2-revisions.js";
import { rpcRegistry } from "./opencode-2-rpc.js";
import { builtInTools, type Registered } from "./opencode-2-tools.js";

export type { HostRevision, ToolState };

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
  messages: LlmMessage[];
  tools: Record<string, { description: string; input: Record<string, unknown> }>;
  error?: string;
}

export type Responder = (request: ModelRequest, sessionID: string) => ModelReply | Promise<ModelReply>;

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
  const crashes: string[] = [];
  const failedExecutions: string[] = [];
  const store = new Map<string, string>();
  const abort = new AbortController();
  let registry = new Map<string, Registered>();
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

  const builtIns = builtInTools(directory);

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

  const events = eventBus(() => stopped);
  const rpc = rpcRegistry(events.emit);

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
      subscribe: (options) => events.subscribe(options),
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

  const { drain } = agentLoop({
    revision,
    responder,
    trigger,
    registry: () => registry,
    recorded,
    crashes,
    failedExecutions,
    signal: abort.signal,
    stopped: () => stopped,
  });

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
    events.closeStreams();
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
      events.emit("session.created", { sessionID, ...rest });
      return info.id;
    },
    switchAgent: (sessionID, agent, options = {}) => {
      const session = live(sessionID);
      if (session.agent === agent) return;
      session.agent = agent;
      if (options.info !== "kept") session.info = { ...session.info, agent };
      events.emit("session.agent.selected", { sessionID, agent });
    },
    deleteSession: (sessionID) => {
      live(sessionID).deleted = true;
      events.emit("session.deleted", { sessionID });
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
      events.emit("session.compaction.started", { sessionID, reason: "manual", recent: "" });
      session.history.push({ type: "checkpoint", id: ascendingId("msg"), summary });
      events.emit("session.compaction.ended", { sessionID, reason: "manual", text: summary, recent: "" });
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
    onEvent: (listener) => events.onEvent(listener),
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
