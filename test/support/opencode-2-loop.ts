/**
 * The simulated OpenCode 2 host's agent loop (opencode-2-host.ts): a
 * session's inbox promoted into its history, a model request built from it
 * for each step, run through the `context` hooks and answered by the test's
 * responder, and each tool call of a step run through the tool hooks.
 */
import type * as V2 from "../../src/hosts/opencode-2/api.js";
import { ascendingId, type HistoryEntry, toLlmMessages, truncate } from "./opencode-2-history.js";
import type { ModelRequest, Responder } from "./opencode-2-host.js";
import type { CallBase, Finished, PluginTool, Revision, ToolState } from "./opencode-2-revisions.js";
import { direct, type Registered } from "./opencode-2-tools.js";

export const SYSTEM_PROMPT = "You are the simulated OpenCode 2 agent.";
export const SIM_MODEL = { providerID: "sim", id: "sim-model" } as const;
export const MAX_STEPS = 25;

export type Deferred = { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void };
export type InboxItem = {
  id: string;
  text: string;
  files?: V2.SessionPrompt["prompt"]["files"];
  delivery: "steer" | "queue";
  done: Deferred;
};
/** `agent`: the agent the session's requests run as; `info.agent`: what its stored info says. */
export type SimSession = {
  info: V2.SessionInfo;
  agent: string;
  history: HistoryEntry[];
  inbox: InboxItem[];
  deleted: boolean;
  running: boolean;
  compactions: number;
};

export function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** An Error's (or `Tool.Error`'s) message. */
const message = (error: unknown) =>
  typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string"
    ? (error as { message: string }).message
    : String(error);

/** What the loop needs of the host: its revision, hooks, tools and model, and where it records what happened. */
export interface LoopHost {
  readonly revision: Revision;
  readonly responder: Responder;
  /** Runs the hooks registered for `key` on `event`, in order, each awaited. */
  trigger<E>(key: string, event: E): Promise<E>;
  /** The tools as the transforms last built them. */
  registry(): Map<string, Registered>;
  readonly recorded: ModelRequest[];
  readonly crashes: string[];
  readonly failedExecutions: string[];
  /** Aborted when the host stops. */
  readonly signal: AbortSignal;
  stopped(): boolean;
}

/** The loop of a host: `drain` runs a session's turns while its inbox holds input. */
export function agentLoop(host: LoopHost): { drain(session: SimSession): Promise<void> } {
  let callCounter = 0;

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
      before = (await host.trigger(
        `tool.execute.before`,
        host.revision.before({ tool: call.name, ...base, input: call.input }),
      )) as { tool: string; input: unknown };
    } catch (error) {
      return { status: "error", error: message(error) };
    }
    const entry = offered.get(before.tool);
    if (!entry) {
      const known = host.registry().get(before.tool);
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
        (text) => host.revision.builtin(entry.builtin.name, text),
        (error: unknown) => ({ ok: false as const, error: message(error) }),
      );
    } else {
      try {
        finished = await host.revision.run(entry.plugin as PluginTool, before.input, {
          sessionID: session.info.id,
          signal: host.signal,
        });
      } catch (error) {
        // A plugin's Promise `execute` that rejects is a defect: the model step crashes.
        host.crashes.push(`${before.tool}: ${message(error)}`);
        throw new Error(`model step crashed: tool ${before.tool} threw: ${message(error)}`);
      }
    }
    const after = host.revision.after(made, finished);
    try {
      await host.trigger("tool.execute.after", after);
    } catch (error) {
      return { status: "error", error: message(error) };
    }
    const state = host.revision.settled(after);
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
    const registry = host.registry();
    // Each request converts every plugin tool's schema (2.0.26 did at registration and skipped a bad one; the trunk throws here, unguarded).
    const tools: ModelRequest["tools"] = {};
    try {
      for (const [name, entry] of registry) {
        if (entry.builtin) tools[name] = { description: entry.builtin.description, input: entry.builtin.input };
        else {
          const schema = host.revision.schema(entry.plugin);
          if (direct(entry.plugin))
            tools[name] = { description: String(entry.plugin?.description ?? ""), input: schema };
        }
      }
    } catch (error) {
      host.failedExecutions.push(`${session.info.id}: ${message(error)}`);
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
      await host.trigger("session.context", event);
    } catch (error) {
      host.recorded.push({ ...structuredClone(event), error: message(error) });
      throw new Error(`model request failed: a context hook threw: ${message(error)}`);
    }
    const request: ModelRequest = structuredClone(event);
    host.recorded.push(request);
    const reply = await host.responder(structuredClone(request), session.info.id);
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
        if (session.deleted || host.stopped()) {
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

  return { drain };
}
