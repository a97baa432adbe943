/**
 * The messages of a model request, as OpenCode 2's `context` hook hands them
 * to the adapter (`SessionContext.messages`, api.ts): `@opencode/ai`'s schema,
 * declared here for the reason api.ts gives, narrowed to the fields read or
 * written.
 */

/**
 * `packages/ai/src/schema/messages.ts` (@1066927): a message of a model
 * request. User, synthetic, assistant and checkpoint messages carry their
 * session message's id (stable between requests); tool results are separate
 * `tool` messages without an id (`packages/core/src/session/runner/to-llm-message.ts`).
 */
export interface LlmMessage {
  id?: string;
  role: "system" | "user" | "assistant" | "tool";
  content: LlmContentPart[];
  metadata?: Record<string, unknown>;
}

export type LlmContentPart =
  | { type: "text"; text: string }
  | { type: "tool-call"; id: string; name: string; input: unknown }
  | { type: "tool-result"; id: string; name: string; result: { type: string; value: unknown } }
  | { type: string; [key: string]: unknown };
