/**
 * The part of OpenCode 2's plugin API (`@opencode/plugin`, Promise flavour)
 * this adapter uses, declared here because the registry these machines reach
 * does not serve the package. Replace with the real package's types when it
 * becomes installable.
 *
 * Read from OpenCode's source, `@opencode/plugin` 2.0.26: the mirror
 * `zjdCander/opencode@1066927be4e2` of `anomalyco/opencode`, checked against
 * `anomalyco/opencode` at the revisions named on each declaration, and
 * against the July 2026 trunk of the V2 line (`anomalyco/opencode`
 * @44b6938b2ad2, read in its mirror `Althenia/opencode`; "the trunk" below),
 * which a real run showed to differ: what it lacks is optional here. Shapes
 * are narrowed to the fields the adapter reads or writes. The messages of a
 * model request (`@opencode/ai`'s) are in api-llm.ts.
 */

import type { LlmMessage } from "./api-llm.js";

/** `packages/plugin/src/promise/registration.ts` (@1066927): what every `hook` and `transform` resolves to. */
export interface Registration {
  dispose(): Promise<void>;
}

/** What a plugin's `setup` may return (`packages/plugin/src/promise/plugin.ts` @1066927): run when it stops. */
export type Cleanup = () => Promise<void> | void;

/**
 * `packages/plugin/src/promise/plugin.ts` `Context` (@1066927), the domains
 * used here. The trunk's has no `location`, `storage`, `rpc` or `app`
 * (`packages/plugin/src/v2/promise/plugin.ts` @44b6938b2ad2: options, agent,
 * aisdk, catalog, command, event, integration, plugin, reference, session,
 * skill, tool); the adapter works without each (`host-offer.ts`).
 */
export interface PluginContext {
  /** The config entry's `options` (`{ "package", "options" }`), `{}` when none: `packages/core/src/plugin/module.ts` (@1066927). */
  readonly options: Record<string, unknown>;
  /** Where this plugin instance runs: `packages/schema/src/location.ts` (@1066927). */
  readonly location?: { readonly directory: string; readonly project?: { readonly directory?: string } };
  readonly session: SessionDomain;
  readonly tool: ToolDomain;
  readonly event: EventDomain;
  readonly storage?: StorageDomain;
  /** Absent from revisions before plugin RPC; the adapter goes on without its Rules panel then. */
  readonly rpc?: RpcDomain;
  /** `packages/plugin/src/app.ts` (anomalyco @7527ad8): which OpenCode this is. */
  readonly app?: { readonly name?: string; readonly version?: string; readonly channel?: string };
}

/** `packages/plugin/src/promise/session.ts` (anomalyco @56a1c92): the hooks and operations used. */
export interface SessionDomain {
  hook<Name extends keyof SessionHooks>(
    name: Name,
    callback: (event: SessionHooks[Name]) => Promise<void> | void,
  ): Promise<Registration>;
  /** `SessionApi.get` (`packages/client`, an HTTP endpoint adapter): the session's info. */
  get(input: { sessionID: string }): Promise<SessionInfo>;
}

/** `packages/schema/src/session.ts` (anomalyco @06f9d1a): the fields read. */
export interface SessionInfo {
  readonly id: string;
  readonly parentID?: string;
  readonly agent?: string;
  readonly model?: { readonly providerID: string; readonly id: string };
}

/**
 * `packages/plugin/src/promise/rpc.ts` (@1066927): a plugin's methods and
 * events, called from a terminal UI plugin by `context.client.rpc(definition)`
 * (`packages/client/src/promise/rpc.ts`), routed by `definition.id` to the last
 * registration (`packages/core/src/rpc.ts` `call`). Available to every server
 * plugin (`packages/core/src/plugin/host.ts`: `rpc: Object.assign(rpc.client, { register })`).
 */
export interface RpcDomain {
  register(
    definition: RpcDefinition,
    handlers: Record<string, (input: unknown) => Promise<unknown>>,
  ): Promise<RpcRegistration>;
}

/** `packages/schema/src/rpc.ts` `PortableDefinition` (@1066927): JSON Schemas are portable; inputs and outputs are checked against them. */
export interface RpcDefinition {
  readonly id: string;
  readonly methods: Readonly<
    Record<string, { readonly input: Record<string, unknown>; readonly output: Record<string, unknown> }>
  >;
  readonly events: Readonly<Record<string, { readonly schema: Record<string, unknown> & { readonly type: "object" } }>>;
}

export interface RpcRegistration extends Registration {
  /** Published to every event subscriber as `rpc.<id>.<name>`. */
  readonly events: { emit(name: string, data: Record<string, unknown>): Promise<void> };
}

interface SessionHooks {
  prompt: SessionPrompt;
  context: SessionContext;
}

/**
 * `SessionPrompt` (anomalyco @56a1c92): runs once per user input, before it is
 * admitted (`packages/core/src/session/prompt.ts` @1066927); `messageID` becomes
 * the user message's id in history and in model requests.
 */
export interface SessionPrompt {
  readonly sessionID: string;
  readonly messageID: string;
  prompt: { text: string; files?: Array<{ uri?: string; url?: string; path?: string; name?: string }> };
  delivery: "steer" | "queue";
}

/**
 * `SessionContext` (anomalyco @56a1c92): runs, awaited, before every model
 * request of the agent loop, tool continuations and retries included
 * (`packages/core/src/session/model-request.ts`, `runner/llm.ts` @1066927).
 * Edits reach only that request.
 */
export interface SessionContext {
  readonly sessionID: string;
  readonly agent: string;
  readonly model: { readonly providerID: string; readonly id: string };
  system: Array<{ type: "text"; text: string }>;
  messages: LlmMessage[];
}

/** `packages/plugin/src/promise/tool.ts` (anomalyco @196e461). */
export interface ToolDomain {
  hook<Name extends keyof ToolHooks>(
    name: Name,
    callback: (event: ToolHooks[Name]) => Promise<void> | void,
  ): Promise<Registration>;
  /** The callback must be synchronous, cheap and replayable. */
  transform(callback: (editor: ToolEditor) => void): Promise<Registration>;
}

interface ToolHooks {
  "execute.before": ToolCalled;
  "execute.after": ToolFinished;
}

/**
 * `execute.before`: throwing refuses the call, its error given to the model
 * as the call's result (promise/tool.ts @196e461; the trunk: `Effect.promise`
 * makes the throw a defect of the call, and the model reads its text, as run).
 * 2.0.26 names the call `id`, the trunk `callID` (`tool-events.ts` reads either).
 */
export interface ToolCalled {
  readonly tool: string;
  readonly sessionID: string;
  readonly agent?: string;
  readonly messageID?: string;
  /** The call's id (`Tool.CallID`); `execute.after` names the same. */
  readonly id?: string;
  readonly callID?: string;
  readonly input: unknown;
}

/** `execute.after`, 2.0.26's or the trunk's (`tool-events.ts` reads either). */
export type ToolFinished = ToolFinishedV2 | ToolFinishedTrunk;

/** 2.0.26 stores and sends the mutated `result` (`packages/core/src/tool.ts` `executeTool` @1066927); `output` stands in for empty `content`. */
type ToolFinishedV2 = {
  readonly tool: string;
  readonly sessionID: string;
  readonly id?: string;
  readonly input: unknown;
} & ({ readonly status: "completed"; result: ToolResult } | { readonly status: "error"; error: unknown });

/** The trunk's (`packages/core/src/tool/hooks.ts` `AfterEvent` @44b6938b2ad2): no `status`; the model reads `output` when present, else `result`. */
interface ToolFinishedTrunk {
  readonly status?: undefined;
  readonly tool: string;
  readonly sessionID: string;
  readonly messageID?: string;
  readonly callID: string;
  readonly input: unknown;
  result: { readonly type: "json" | "text" | "content" | "error"; readonly value: unknown };
  output?: {
    readonly structured: unknown;
    readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>;
  };
  outputPaths?: readonly string[];
}

/** `packages/schema/src/tool.ts` `Result` (anomalyco @0f131b3). */
export interface ToolResult {
  readonly output?: unknown;
  readonly content?: string | ReadonlyArray<ToolContent>;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export type ToolContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "file"; readonly uri: string; readonly mime: string; readonly name?: string };

/**
 * What a transform's callback gets: 2.0.26's `ToolEditor` (`list`, `get`,
 * `namespace`, `add(info)`, `update`, `remove`), the trunk's `ToolDraft`
 * (`add(tool)` only). `add` takes the tool alone on both; a draft whose `add`
 * takes a name first is another API (`host-offer.ts`).
 */
export interface ToolEditor {
  add(tool: ToolInfo): void;
}

/**
 * `Tool.Info` (`packages/schema/src/tool.ts`) with a Promise `execute`. Only a
 * tool with `codemode: false` is offered to the model directly; any other is
 * reachable only through the `execute` code tool (`packages/core/src/tool.ts` `snapshot`).
 * `input` is a plain JSON Schema or a Standard Schema on 2.0.26; the trunk
 * takes a plain one only as `jsonSchema` (`rule-tool-info.ts`).
 */
export interface ToolInfo {
  name: string;
  description: string;
  input: unknown;
  jsonSchema?: Record<string, unknown>;
  options?: { codemode: false };
  execute(
    input: unknown,
    context: { readonly sessionID: string; readonly signal?: AbortSignal },
  ): Promise<ToolResult | ToolAnswer>;
}

/** A dynamic tool's answer on the trunk (`DynamicOutput`, `packages/plugin/src/v2/effect/tool.ts` @44b6938b2ad2); 2.0.26 reads its `content` the same way. */
interface ToolAnswer {
  readonly structured: unknown;
  readonly content: ReadonlyArray<ToolContent>;
}

/** `packages/plugin/src/promise/event.ts`, `packages/client/src/shared-events.ts` (@1066927): OpenCode 2 events only. */
export interface EventDomain {
  subscribe(options?: { signal?: AbortSignal }): AsyncIterable<HostEvent>;
}

/** `packages/schema/src/event.ts`, `session-event.ts` (@1066927): `session.deleted` carries `{ sessionID }`. */
export interface HostEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/** `packages/plugin/src/promise/storage.ts` (@1066927): durable JSON, scoped to the plugin's id. */
export interface StorageDomain {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
  remove(key: string): Promise<void>;
}
