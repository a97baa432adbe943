/**
 * The `rule` tool in the one shape every OpenCode 2 revision this adapter was
 * built to takes without harm. Pure.
 *
 * How each turns a plugin's tool into the model's schema and its answer into
 * the model's content:
 * - 2.0.26 (`packages/core/src/tool/runtime.ts` `definition`, `execute`
 *   @1066927): `input` is a Standard Schema (its `~standard.jsonSchema.input()`
 *   is the model's schema, its `validate` checks the call), an Effect Schema or
 *   a plain JSON Schema; with no `output`, the answer's `content` is what the
 *   model reads. A tool whose definition does not convert is skipped at
 *   registration, logged (`packages/core/src/tool.ts` `registrationError`).
 * - The July 2026 trunk (`packages/plugin/src/v2/effect/tool.ts` `definition`,
 *   `settle`; `packages/core/src/plugin/promise.ts` `fromPromiseTool`
 *   @44b6938b2ad2): a tool with a `jsonSchema` key is a dynamic tool, that
 *   schema given to the model as it is and the answer's `{ structured, content }`
 *   taken as the model's content; any other tool needs Standard Schemas for
 *   both `input` and `output`, and one without breaks every model request of
 *   every session (the schema is converted for each request, unguarded).
 * So the tool carries both: a Standard Schema `input` made from the plain
 * schema, and the plain schema as `jsonSchema`; no `output`; and it answers
 * `{ structured, content: [text] }`, which both read as the same text.
 */
import { RULE_TOOL_DESCRIPTION, RULE_TOOL_INPUT, RULE_TOOL_NAME } from "../opencode/rule-tool.js";

/** Standard Schema V1 with its JSON Schema (`@standard-schema/spec`: `StandardSchemaV1 & StandardJSONSchemaV1`), the part OpenCode reads. */
interface StandardJsonSchema {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    validate(
      value: unknown,
    ):
      | { readonly value: unknown }
      | { readonly issues: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PropertyKey> }> };
    readonly jsonSchema: {
      input(options?: { readonly target?: string }): Record<string, unknown>;
      output(options?: { readonly target?: string }): Record<string, unknown>;
    };
  };
}

/** What the tool answers: read as the model's content by 2.0.26 (`content`) and by the trunk's dynamic tools (`structured`, `content`). */
interface OpenCode2ToolAnswer {
  readonly structured: Record<string, never>;
  readonly content: ReadonlyArray<{ readonly type: "text"; readonly text: string }>;
}

interface RuleToolInfo {
  readonly name: string;
  readonly description: string;
  readonly input: StandardJsonSchema;
  readonly jsonSchema: Record<string, unknown>;
  /** Offered to the model itself, not only inside OpenCode's code tool (2.0.26 `snapshot`; the trunk's `materialize`). */
  readonly options: { readonly codemode: false };
  execute(input: unknown, context: { readonly sessionID: string }): Promise<OpenCode2ToolAnswer>;
}

export function ruleToolAnswer(text: string): OpenCode2ToolAnswer {
  return { structured: {}, content: [{ type: "text", text }] };
}

/** The tool, answering with `read`'s text (a guarded call that never throws). */
export function ruleToolInfo(
  read: (input: unknown, context: { readonly sessionID: string }) => Promise<string>,
): RuleToolInfo {
  return {
    name: RULE_TOOL_NAME,
    description: RULE_TOOL_DESCRIPTION,
    input: standardJsonSchema(RULE_TOOL_INPUT, ruleToolCall),
    jsonSchema: copy(RULE_TOOL_INPUT),
    options: { codemode: false },
    execute: async (input, context) => ruleToolAnswer(await read(input, context)),
  };
}

/**
 * A Standard Schema over a plain JSON Schema: `validate` is the given check,
 * and the JSON Schema is the same for input and output and for every target
 * (a one-string-property object reads the same in draft 2020-12, draft 07
 * and OpenAPI 3.0). Each call gets its own copy: a host may edit it.
 */
function standardJsonSchema(
  schema: Record<string, unknown>,
  validate: StandardJsonSchema["~standard"]["validate"],
): StandardJsonSchema {
  return {
    "~standard": {
      version: 1,
      vendor: "opencode-rulebook",
      validate,
      jsonSchema: { input: () => copy(schema), output: () => copy(schema) },
    },
  };
}

/** The rule tool's call, checked: a name, a non-empty string. */
export function ruleToolCall(value: unknown): ReturnType<StandardJsonSchema["~standard"]["validate"]> {
  const name = (value as { name?: unknown } | null | undefined)?.name;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { issues: [{ message: "Expected an object with the rule's name" }] };
  if (typeof name !== "string" || name.trim() === "")
    return { issues: [{ message: "Expected the rule's name, a non-empty string", path: ["name"] }] };
  return { value: { name } };
}

function copy(schema: Record<string, unknown>): Record<string, unknown> {
  return structuredClone(schema) as Record<string, unknown>;
}
