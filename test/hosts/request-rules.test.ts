/**
 * Where OpenCode 2 requests carry the rules (hosts/opencode-2/request-rules.ts):
 * each rules message at the place it was first given, so every request is the
 * one before plus new messages (the prompt cache holds), and a window that
 * moved on is noticed.
 */
import { describe, expect, test } from "vitest";
import type { LlmMessage } from "../../src/hosts/opencode-2/api-llm.js";
import { placeRules, type RulesEntry } from "../../src/hosts/opencode-2/request-rules.js";

const user = (id: string, text: string): LlmMessage => ({ id, role: "user", content: [{ type: "text", text }] });
const assistant = (id: string, call?: string): LlmMessage => ({
  id,
  role: "assistant",
  content: call
    ? [{ type: "tool-call", id: call, name: "read", input: { path: "src/a.ts" } }]
    : [{ type: "text", text: "done" }],
});
const toolResult = (call: string, text: string): LlmMessage => ({
  role: "tool",
  content: [{ type: "tool-result", id: call, name: "read", result: { type: "text", value: text } }],
});
const entry = (text: string, awaits?: string): RulesEntry => ({
  text,
  marker: { kind: "rules", rules: [text], trigger: "test" },
  ...(awaits ? { awaits } : {}),
});

/** The request as text lines, rules messages shown as `RULES:<text>`. */
function shape(messages: readonly LlmMessage[]): string[] {
  return messages.map((message) => {
    const text = message.content
      .map((part) =>
        "text" in part ? part.text : part.type === "tool-result" ? `result ${part.id}` : `call ${part.id}`,
      )
      .join(" ");
    return message.metadata?.["opencode-rulebook"] ? `RULES:${text}` : `${message.role}:${text}`;
  });
}

function placed(messages: LlmMessage[], entries: readonly RulesEntry[]) {
  const result = placeRules(messages, entries);
  if (result.moved) throw new Error("the window moved");
  return result;
}

describe("placing rules in a request", () => {
  test("rules for a new session go before the user's first message", () => {
    const { messages } = placed([user("msg_01", "hello")], [entry("always")]);
    expect(shape(messages)).toEqual(["RULES:always", "user:hello"]);
  });

  test("every later request carries the rules at the same place with the same bytes: the one before is its prefix", () => {
    let entries: readonly RulesEntry[] = [entry("always")];
    const history: LlmMessage[] = [user("msg_01", "read a.ts")];
    const first = placed(history, entries);
    entries = first.entries;
    history.push(assistant("msg_02", "call_1"), toolResult("call_1", "file text"));
    const second = placed(history, entries);
    expect(JSON.stringify(second.messages.slice(0, first.messages.length))).toBe(JSON.stringify(first.messages));
    history.push(assistant("msg_03"), user("msg_04", "thanks"));
    const third = placed(history, [...second.entries, entry("keyword", "msg_04")]);
    expect(JSON.stringify(third.messages.slice(0, second.messages.length))).toBe(JSON.stringify(second.messages));
    expect(shape(third.messages)).toEqual([
      "RULES:always",
      "user:read a.ts",
      "assistant:call call_1",
      "tool:result call_1",
      "assistant:done",
      "RULES:keyword",
      "user:thanks",
    ]);
  });

  test("rules a tool result brought go after that step's tool results, before a message steered in at the boundary", () => {
    const history = [
      user("msg_01", "go"),
      assistant("msg_02", "call_1"),
      toolResult("call_1", "a"),
      assistant("msg_03", "call_2"),
      toolResult("call_2", "b"),
    ];
    const { messages, entries } = placed(history, [entry("ts-rules")]);
    expect(shape(messages).slice(-2)).toEqual(["tool:result call_2", "RULES:ts-rules"]);
    expect(entries[0]?.anchor).toEqual({ after: "msg_03" });
    const later = placed([...history, user("msg_04", "steer")], entries);
    expect(shape(later.messages).slice(-3)).toEqual(["tool:result call_2", "RULES:ts-rules", "user:steer"]);
  });

  test("rules for a prompt not yet in the request wait for it; a later user message means it was withdrawn", () => {
    const history = [user("msg_01", "go"), assistant("msg_02", "call_1"), toolResult("call_1", "a")];
    const waiting = placed(history, [entry("keyword", "msg_05")]);
    expect(shape(waiting.messages)).not.toContain("RULES:keyword");
    const arrived = placed([...history, user("msg_05", "about migrations")], waiting.entries);
    expect(shape(arrived.messages).slice(-2)).toEqual(["RULES:keyword", "user:about migrations"]);
    const withdrawn = placed([...history, user("msg_07", "something else")], waiting.entries);
    expect(shape(withdrawn.messages).slice(-2)).toEqual(["RULES:keyword", "user:something else"]);
  });

  test("a request without a rule's place (a compaction checkpoint) reports that the window moved", () => {
    const { entries } = placed([user("msg_01", "hello")], [entry("always")]);
    expect(placeRules([user("msg_09", "<conversation-checkpoint>…</conversation-checkpoint>")], entries)).toEqual({
      moved: true,
    });
  });

  test("several rules messages at one place keep the order they were given in", () => {
    const { messages } = placed([user("msg_01", "hello")], [entry("always"), entry("keyword", "msg_01")]);
    expect(shape(messages)).toEqual(["RULES:always", "RULES:keyword", "user:hello"]);
  });
});
