/**
 * The OpenCode 2 revisions the simulated host can be (issue 39). Each differs
 * from 2.0.26 where its source shows, in what a plugin can see: the plugin
 * context's members, which session hooks fire, how a plugin's tool becomes
 * the model's schema and answer, and the tool hooks' events.
 *
 * - `2.0.26`: `@opencode/plugin` 2.0.26, read at `zjdCander/opencode@1066927`.
 * - `trunk`: `anomalyco/opencode@44b6938b2ad2` (2026-07-20), read in its mirror
 *   `Althenia/opencode`, the V2 server a real run used:
 *   1. context (`packages/core/src/plugin/promise.ts:59`, `context2`): options,
 *      agent, aisdk, catalog, command, event, integration, plugin, reference,
 *      session, skill, tool; no location, storage, rpc or app;
 *   2. session hooks: any name registers (`packages/core/src/plugin/hooks.ts`
 *      `register`), only `context` is triggered (`session/model-request.ts:65`,
 *      `session/generate-node.ts:35`): `prompt` and `compaction` never fire;
 *   3. a plugin tool's schema is converted at every request
 *      (`tool/registry.ts:283` → `plugin/src/v2/effect/tool.ts:180`): a
 *      `jsonSchema` key is taken as it is (a dynamic tool), otherwise `input`
 *      and `output` must be Standard Schemas (`tool.ts:257`, `:263`), and a
 *      plain one throws and fails every session's execution;
 *   4. tool events (`core/src/tool/hooks.ts`, `tool/registry.ts:119`): the
 *      call is `callID`; `execute.after` has no `status`, `result` is
 *      `{ type, value }` with `output: { structured, content }` beside it;
 *   5. the model reads `output` when there is one
 *      (`session/runner/publish-llm-event.ts:40` `settledOutput`); a transform
 *      gets a draft with `add(tool)` only (`plugin/promise.ts:191`);
 *      `event.subscribe()` takes no options (`plugin/promise.ts:92`).
 * - `no-session-hooks`: the trunk from `761f37370` (2026-07-09) to `f92d84746`
 *   (2026-07-15): its session domain has no `hook` (`create, get, prompt,
 *   command, interrupt`).
 * - `name-first-tools`: the trunk with the tool draft of `efeff6374`
 *   (2026-07-10), `add(name, tool, options)`: a tool handed over alone is
 *   taken for its name, and every request fails on the `undefined` tool.
 */
import type * as V2 from "../../src/hosts/opencode-2/api.js";

export type HostRevision = "2.0.26" | "trunk" | "no-session-hooks" | "name-first-tools";

/** A plugin's tool as the host keeps it: whatever the plugin handed over. */
export type PluginTool = Record<string, unknown> & { name?: unknown; execute?: unknown };

/** The parts of a plugin context the simulated host builds; each revision hands over some of them. */
export interface ContextParts {
  options: Record<string, unknown>;
  location: NonNullable<V2.PluginContext["location"]>;
  session: V2.SessionDomain & Record<string, unknown>;
  tool: V2.ToolDomain;
  event: V2.EventDomain;
  storage: V2.StorageDomain;
  rpc: V2.RpcDomain;
}

/** The call a tool event is about. */
export interface CallBase {
  tool: string;
  sessionID: string;
  agent: string;
  messageID: string;
  callID: string;
  input: unknown;
}

/** How a call settled, before the `execute.after` hooks, in the revision's own terms. */
export type Finished = { ok: true; value: unknown } | { ok: false; error: string };

/** A tool call in history: what the model reads of it. */
export type ToolState =
  | { status: "running" }
  | {
      status: "completed";
      content: V2.ToolContent[];
      metadata?: Record<string, unknown>;
      result?: { type: string; value: unknown };
    }
  | { status: "error"; error: string };

export interface Revision {
  readonly name: HostRevision;
  /** The session hooks this revision calls. */
  fires(hook: "prompt" | "compaction"): boolean;
  context(parts: ContextParts): V2.PluginContext;
  /** The editor a transform's callback gets; `add` files a tool by name. */
  editor(add: (name: string, tool: PluginTool | undefined) => void): unknown;
  /** Registration: 2.0.26 skips a tool whose definition does not convert (`packages/core/src/tool.ts` `registrationError`); the trunk takes anything. */
  accepts(tool: PluginTool | undefined): boolean;
  /** The model's schema for a plugin tool; throws as the revision's conversion does. */
  schema(tool: PluginTool | undefined): Record<string, unknown>;
  /** Runs a plugin tool; a plugin's `execute` that rejects rejects here (a defect: the model step crashes). */
  run(tool: PluginTool, input: unknown, context: { sessionID: string; signal: AbortSignal }): Promise<Finished>;
  /** A built-in tool's answer, as its text. */
  builtin(name: string, text: string): Finished;
  before(call: CallBase): Record<string, unknown>;
  after(call: CallBase, finished: Finished): Record<string, unknown>;
  /** What history keeps and the model reads, from the `execute.after` event as the hooks left it. */
  settled(after: Record<string, unknown>): ToolState;
}

const message = (error: unknown) =>
  typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string"
    ? (error as { message: string }).message
    : String(error);

/** `packages/core/src/tool/runtime.ts` `normalizeContent` (2.0.26): a string is one text item; empty content stands for the stringified output. */
export function normalizeContent(content: unknown, output?: unknown): V2.ToolContent[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (Array.isArray(content) && content.length > 0) return [...content];
  let text: string;
  try {
    text = typeof output === "string" ? output : (JSON.stringify(output) ?? String(output));
  } catch {
    text = String(output);
  }
  return [{ type: "text", text }];
}

type Standard = {
  "~standard": {
    validate(value: unknown): { value?: unknown; issues?: Array<{ message: string }> };
    jsonSchema: { input(o: object): object; output(o: object): object };
  };
};
const isStandard = (value: unknown): value is Standard =>
  typeof value === "object" && value !== null && "~standard" in value;

/** `runtime.ts` `validateInput` / `plugin/src/v2/effect/tool.ts` `validateStandard`: the schema's issues, or the value it gives. */
function validated(schema: unknown, value: unknown): { value: unknown } | { issues: string } {
  if (!isStandard(schema)) return { value };
  const result = schema["~standard"].validate(value);
  return result.issues ? { issues: result.issues.map((issue) => issue.message).join(", ") } : { value: result.value };
}

const V2_0_26: Revision = {
  name: "2.0.26",
  fires: () => true,
  context: (parts) => ({ ...parts, app: { name: "opencode", version: "2.0.26", channel: "latest" } }),
  editor: (add) => ({ add: (tool: PluginTool) => add(String(tool?.name), tool) }),
  accepts(tool) {
    try {
      V2_0_26.schema(tool);
      return true;
    } catch {
      return false;
    }
  },
  // `runtime.ts` `inputJsonSchema`: a Standard Schema's JSON Schema, else the value as a plain JSON Schema.
  schema: (tool) =>
    isStandard(tool?.input)
      ? (tool.input["~standard"].jsonSchema.input({ target: "draft-2020-12" }) as Record<string, unknown>)
      : ((tool?.input ?? {}) as Record<string, unknown>),
  async run(tool, input, context) {
    const checked = validated(tool.input, input);
    if ("issues" in checked)
      return { ok: false, error: `Invalid arguments for tool "${String(tool.name)}": ${checked.issues}` };
    const raw = (await (tool.execute as V2.ToolInfo["execute"])(checked.value, context)) as V2.ToolResult;
    // `runtime.ts` `execute`: without an output schema, the answer's content (the hook sees it normalized to an array).
    return { ok: true, value: { ...raw, content: normalizeContent(raw.content, raw.output) } };
  },
  builtin: (_name, text) => ({ ok: true, value: { content: [{ type: "text", text }] } }),
  before: ({ callID, ...call }) => ({ ...call, id: callID }),
  after: ({ callID, ...call }, finished) =>
    finished.ok
      ? { ...call, id: callID, status: "completed", result: finished.value }
      : { ...call, id: callID, status: "error", error: { message: finished.error } },
  settled(after) {
    if (after.status !== "completed") return { status: "error", error: message(after.error) };
    const result = after.result as V2.ToolResult;
    const metadata = result.metadata as Record<string, unknown> | undefined;
    return {
      status: "completed",
      content: normalizeContent(result.content, result.output),
      ...(metadata ? { metadata } : {}),
    };
  },
};

/** `packages/ai/src/schema/messages.ts` `ToolOutput.toResultValue` (@44b6938b2ad2). */
function toResultValue(output: { structured: unknown; content: V2.ToolContent[] }): { type: string; value: unknown } {
  if (output.content.length === 0) return { type: "json", value: output.structured };
  if (output.content.length === 1 && output.content[0]?.type === "text")
    return { type: "text", value: output.content[0].text };
  return { type: "content", value: output.content };
}

/** `plugin/src/v2/effect/tool.ts` `definition`: a dynamic tool's `jsonSchema`, else both Standard Schemas' JSON Schemas (a plain schema has no `~standard`: the TypeError every execution failed with). */
function trunkSchema(tool: PluginTool | undefined): Record<string, unknown> {
  if (tool === undefined || tool === null)
    throw new TypeError("undefined is not an object (evaluating '\"jsonSchema\" in tool')");
  if ("jsonSchema" in tool) return tool.jsonSchema as Record<string, unknown>;
  const standard = (schema: unknown, io: "input" | "output") => {
    const jsonSchema = (schema as Standard | undefined)?.["~standard"]?.jsonSchema;
    if (jsonSchema === undefined)
      throw new TypeError(`undefined is not an object (evaluating 'schema["~standard"].jsonSchema')`);
    return jsonSchema[io]({ target: "draft-2020-12" }) as Record<string, unknown>;
  };
  standard(tool.structured ?? tool.output, "output");
  return standard(tool.input, "input");
}

const TRUNK: Revision = {
  name: "trunk",
  fires: () => false,
  context: (parts) =>
    ({
      options: parts.options,
      agent: {},
      aisdk: {},
      catalog: {},
      command: {},
      // `promise.ts:92`: `subscribe: () => …`, its options ignored.
      event: { subscribe: () => parts.event.subscribe() },
      integration: {},
      plugin: {},
      reference: {},
      session: parts.session,
      skill: {},
      tool: { hook: parts.tool.hook, transform: parts.tool.transform },
    }) as unknown as V2.PluginContext,
  editor: (add) => ({ add: (tool: PluginTool) => add(String(tool?.name), tool) }),
  accepts: () => true,
  schema: trunkSchema,
  async run(tool, input, context) {
    const execute = tool.execute as (input: unknown, context: unknown) => Promise<unknown>;
    if ("jsonSchema" in tool) {
      // `settle`: a dynamic tool's answer is `{ structured, content }`, taken as it is.
      const answer = (await execute(input, { ...context, callID: "", messageID: "" })) as {
        structured: unknown;
        content: V2.ToolContent[];
      };
      return { ok: true, value: { structured: answer.structured, content: [...answer.content] } };
    }
    const checked = validated(tool.input, input);
    if ("issues" in checked) return { ok: false, error: `Invalid tool input: ${checked.issues}` };
    const value = await execute(checked.value, context);
    const encoded = validated(tool.output, value);
    if ("issues" in encoded)
      return { ok: false, error: `Tool returned an invalid value for its output schema: ${encoded.issues}` };
    const toModel = tool.toModelOutput as ((input: unknown) => V2.ToolContent[]) | undefined;
    const content =
      toModel?.({ input: checked.value, output: encoded.value }) ??
      (typeof encoded.value === "string" ? [{ type: "text" as const, text: encoded.value }] : []);
    return { ok: true, value: { structured: encoded.value, content } };
  },
  // `tool/read.ts`: a text file's read is its structured text page, no content; the other tools answer in text.
  builtin: (name, text) =>
    name === "read"
      ? {
          ok: true,
          value: {
            structured: { type: "text-page", content: text, mime: "text/plain", offset: 1, truncated: false },
            content: [],
          },
        }
      : { ok: true, value: { structured: {}, content: [{ type: "text", text }] } },
  before: (call) => ({ ...call }),
  after(call, finished) {
    if (!finished.ok) return { ...call, result: { type: "error", value: finished.error } };
    const output = finished.value as { structured: unknown; content: V2.ToolContent[] };
    return { ...call, result: toResultValue(output), output };
  },
  settled(after) {
    const output = after.output as { structured: unknown; content: V2.ToolContent[] } | undefined;
    if (output) return { status: "completed", content: [...output.content], result: toResultValue(output) };
    const result = after.result as { type: string; value: unknown };
    if (result.type === "error") return { status: "error", error: message(result.value) };
    return { status: "completed", content: [], result };
  },
};

const NO_SESSION_HOOKS: Revision = {
  ...TRUNK,
  name: "no-session-hooks",
  context(parts) {
    const { hook: _hook, ...session } = parts.session;
    return { ...TRUNK.context(parts), session } as unknown as V2.PluginContext;
  },
};

const NAME_FIRST_TOOLS: Revision = {
  ...TRUNK,
  name: "name-first-tools",
  editor: (add) => ({
    add: (name: unknown, tool: PluginTool | undefined, _options?: unknown) => add(String(name), tool),
  }),
};

export const REVISIONS: Record<HostRevision, Revision> = {
  "2.0.26": V2_0_26,
  trunk: TRUNK,
  "no-session-hooks": NO_SESSION_HOOKS,
  "name-first-tools": NAME_FIRST_TOOLS,
};
