/**
 * OpenCode 2's shapes as each revision gives them (issue 39), read by the
 * adapter's pure readers: tool hook events, the user's words in a request,
 * what the plugin context offers, and the `rule` tool every revision takes.
 */
import { describe, expect, test } from "vitest";
import type { LlmMessage } from "../../src/hosts/opencode-2/api-llm.js";
import { promptsInArrival } from "../../src/hosts/opencode-2/arriving-prompts.js";
import { cannotWorkText, hostOffer, offerNotes, takesToolAlone } from "../../src/hosts/opencode-2/host-offer.js";
import { endingPrompts, MAX_ENDING_PROMPTS } from "../../src/hosts/opencode-2/request-prompts.js";
import { ruleToolCall, ruleToolInfo } from "../../src/hosts/opencode-2/rule-tool-info.js";
import { toolCallOf, toolOutcomeOf } from "../../src/hosts/opencode-2/tool-events.js";
import { RULE_TOOL_INPUT } from "../../src/hosts/opencode/rule-tool.js";

describe("tool hook events, as each revision shapes them", () => {
  test("the call's id: `id` (2.0.26), `callID` (the July trunk), `toolCallID` (before 2026-07-15)", () => {
    const base = { tool: "read", sessionID: "ses_1", input: { path: "a.ts" } };
    expect(toolCallOf({ ...base, messageID: "msg_1", id: "call_a" })).toEqual({ ...base, callID: "call_a" });
    expect(toolCallOf({ ...base, messageID: "msg_1", callID: "call_b" })).toEqual({ ...base, callID: "call_b" });
    expect(toolCallOf({ ...base, assistantMessageID: "msg_1", toolCallID: "call_c" })).toEqual({
      ...base,
      callID: "call_c",
    });
    expect(toolCallOf({ ...base })).toEqual(base);
    expect(toolCallOf(null)).toEqual({ tool: undefined, sessionID: undefined, input: undefined });
  });

  test("2.0.26: `status`, and the result's content (or its output when the content is empty)", () => {
    expect(
      toolOutcomeOf({
        status: "completed",
        result: {
          content: [
            { type: "text", text: "file A" },
            { type: "file", uri: "x", mime: "image/png" },
          ],
        },
      }),
    ).toEqual({
      status: "completed",
      text: "file A",
    });
    expect(toolOutcomeOf({ status: "completed", result: { content: "plain", output: { n: 1 } } })).toEqual({
      status: "completed",
      text: "plain",
    });
    expect(toolOutcomeOf({ status: "completed", result: { output: { n: 1 }, content: [] } })).toEqual({
      status: "completed",
      text: '{"n":1}',
    });
    expect(toolOutcomeOf({ status: "error", error: { message: "no" } })).toEqual({ status: "failed" });
  });

  test("the trunk: no status; `output` is what the model reads, a text read is its page's text; an error result failed", () => {
    const page = {
      type: "text-page",
      content: "line 1\nlegacyFetch(x)",
      mime: "text/plain",
      offset: 1,
      truncated: false,
    };
    // `tool/read.ts` @44b6938b2ad2: a text file's read has no content items, its structured value is the page.
    expect(
      toolOutcomeOf({
        tool: "read",
        callID: "c",
        result: { type: "json", value: page },
        output: { structured: page, content: [] },
      }),
    ).toEqual({
      status: "completed",
      text: "line 1\nlegacyFetch(x)",
    });
    expect(
      toolOutcomeOf({
        callID: "c",
        result: { type: "text", value: "Wrote file successfully: a.ts" },
        output: { structured: {}, content: [{ type: "text", text: "Wrote file successfully: a.ts" }] },
      }),
    ).toEqual({
      status: "completed",
      text: "Wrote file successfully: a.ts",
    });
    // Without `output` (a hook removed it; a provider-executed call), the result's value.
    expect(toolOutcomeOf({ callID: "c", result: { type: "text", value: "plain" } })).toEqual({
      status: "completed",
      text: "plain",
    });
    expect(
      toolOutcomeOf({
        callID: "c",
        result: {
          type: "content",
          value: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        },
      }),
    ).toEqual({ status: "completed", text: "a\nb" });
    expect(toolOutcomeOf({ callID: "c", result: { type: "json", value: { entries: ["a"] } } })).toEqual({
      status: "completed",
      text: '{"entries":["a"]}',
    });
    expect(toolOutcomeOf({ callID: "c", result: { type: "error", value: "Unable to read a.ts" } })).toEqual({
      status: "failed",
    });
  });

  test("an event with neither status nor result, or a status no revision has, counts as failed", () => {
    for (const event of [
      {},
      null,
      { status: "completed" },
      { status: "running", result: { content: "x" } },
      { result: "x" },
    ]) {
      expect(toolOutcomeOf(event).status, JSON.stringify(event)).toBe(
        event && "status" in event && event.status === "completed" ? "completed" : "failed",
      );
    }
  });
});

describe("the user's words in a request, for a host that never calls the prompt hook", () => {
  const user = (id: string | undefined, ...content: LlmMessage["content"]): LlmMessage => ({
    ...(id ? { id } : {}),
    role: "user",
    content,
  });
  const text = (value: string, metadata?: Record<string, unknown>) => ({
    type: "text",
    text: value,
    ...(metadata ? { metadata } : {}),
  });

  test("the user messages the request ends with, their words and attached files (to-llm-message.ts @44b6938b2ad2)", () => {
    const attached = text("\n\nAttached file: src/a.ts\n\nmigration()", {
      attachment: { source: { type: "uri", uri: "file:///p/src/a.ts" }, name: "src/a.ts" },
    });
    const messages: LlmMessage[] = [
      user("msg_1", text("earlier")),
      { id: "msg_2", role: "assistant", content: [text("ok")] },
      user("msg_3", text("Write a migration"), attached),
      user("msg_4", text("and tests")),
    ];
    expect(endingPrompts(messages)).toEqual([
      { messageID: "msg_3", texts: ["Write a migration"], files: ["file:///p/src/a.ts"] },
      { messageID: "msg_4", texts: ["and tests"], files: [] },
    ]);
  });

  test("none after a tool result or an assistant message; none from id-less input or a checkpoint", () => {
    expect(endingPrompts([user("msg_1", text("hi")), { role: "tool", content: [] }])).toEqual([]);
    expect(
      endingPrompts([user("msg_1", text("hi")), { id: "msg_2", role: "assistant", content: [text("ok")] }]),
    ).toEqual([]);
    expect(endingPrompts([user("msg_1", text("hi")), user(undefined, text("<rulebook>…"))])).toEqual([]);
    expect(
      endingPrompts([
        user(
          "msg_9",
          text(
            "<conversation-checkpoint>\nThe following is a summary…\n<summary>migration</summary>\n</conversation-checkpoint>",
          ),
        ),
      ]),
    ).toEqual([]);
    expect(endingPrompts([])).toEqual([]);
  });

  test("a request ending with more new messages than the bound: the newest are read, each once", () => {
    const many = Array.from({ length: MAX_ENDING_PROMPTS + 8 }, (_, i) =>
      user(`msg_${String(i).padStart(3, "0")}`, text(`words ${i}`)),
    );
    const read = endingPrompts(many);
    expect(read).toHaveLength(MAX_ENDING_PROMPTS);
    expect(read[0]?.messageID).toBe("msg_008");
    expect(read.at(-1)?.messageID).toBe(`msg_0${MAX_ENDING_PROMPTS + 7}`);
  });

  test("each message once: one the prompt hook saw is not read again, nor one taken before (a retry, a continuation)", () => {
    const arriving = promptsInArrival();
    arriving.add("ses", { messageID: "msg_2", texts: ["from the hook"], files: [] });
    const request = [user("msg_1", text("old")), user("msg_2", text("from the hook"))];
    expect(arriving.takeArrived("ses", request).map((prompt) => prompt.messageID)).toEqual(["msg_2"]);
    expect(arriving.takeUnseen("ses", endingPrompts(request))).toEqual([]);
    const next = [...request, { id: "msg_3", role: "assistant" as const, content: [] }, user("msg_4", text("unseen"))];
    expect(arriving.takeUnseen("ses", endingPrompts(next)).map((prompt) => prompt.texts)).toEqual([["unseen"]]);
    expect(arriving.takeUnseen("ses", endingPrompts(next))).toEqual([]);
    // A prompt waiting for its request is the hook's, not read from the request.
    arriving.add("ses", { messageID: "msg_6", texts: ["queued"], files: [] });
    expect(arriving.takeUnseen("ses", [{ messageID: "msg_6", texts: ["queued"], files: [] }])).toEqual([]);
    arriving.forget("ses");
    expect(arriving.takeUnseen("ses", endingPrompts(next)).map((prompt) => prompt.messageID)).toEqual(["msg_4"]);
  });
});

describe("what the plugin context offers", () => {
  const fn = () => undefined;
  /** `packages/core/src/plugin/promise.ts:59` @44b6938b2ad2. */
  const trunk = {
    options: {},
    agent: {},
    aisdk: {},
    catalog: {},
    command: {},
    event: { subscribe: fn },
    integration: {},
    plugin: {},
    reference: {},
    session: { hook: fn, get: fn, create: fn, prompt: fn, generate: fn, command: fn, synthetic: fn, interrupt: fn },
    skill: {},
    tool: { hook: fn, transform: fn },
  };

  test("the trunk: session and tool hooks, no location, storage, RPC or version; the notes say what the plugin does instead", () => {
    const offer = hostOffer(trunk);
    expect(offer).toEqual({
      keys: [
        "agent",
        "aisdk",
        "catalog",
        "command",
        "event",
        "integration",
        "options",
        "plugin",
        "reference",
        "session",
        "skill",
        "tool",
      ],
      sessionHooks: true,
      toolHooks: true,
      toolTransform: true,
      storage: false,
      rpc: false,
    });
    const notes = offerNotes(offer, { directory: "/p/app", worktree: "/p" });
    expect(notes.map((note) => note.level)).toEqual(["warn", "info"]);
    expect(notes[0]?.text).toContain("reading the rules of /p/app, the folder it runs in, in the project at /p");
    expect(notes[1]?.text).toContain("no storage");
  });

  test("2.0.26: location, storage, RPC (a client function with `register`) and the app's version", () => {
    const rpc = Object.assign(() => undefined, { register: fn });
    const offer = hostOffer({
      ...trunk,
      app: { name: "opencode", version: "2.0.26", channel: "latest" },
      location: { directory: "/p/app", project: { directory: "/p" } },
      storage: { get: fn, set: fn, remove: fn, scan: fn },
      rpc,
    });
    expect(offer).toMatchObject({
      version: "opencode 2.0.26",
      location: { directory: "/p/app", projectDirectory: "/p" },
      storage: true,
      rpc: true,
    });
    expect(offerNotes(offer, { directory: "/p/app", worktree: "/p" })).toEqual([]);
  });

  test("no session hooks (the trunk of 2026-07-10 to 07-15): the words name what is needed and what was given", () => {
    const { hook: _hook, ...session } = trunk.session;
    const text = cannotWorkText(hostOffer({ ...trunk, session }));
    expect(text).toContain("ctx.session.hook");
    expect(text).toContain(
      "agent, aisdk, catalog, command, event, integration, options, plugin, reference, session, skill, tool (its session domain has no hook)",
    );
    expect(cannotWorkText(hostOffer(null))).toContain("has nothing");
  });

  test("a context whose members throw when read (a proxy, a getter) offers nothing, rather than failing setup", () => {
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error("no");
        },
        ownKeys: () => {
          throw new Error("no");
        },
      },
    );
    expect(hostOffer(hostile)).toEqual({
      keys: [],
      sessionHooks: false,
      toolHooks: false,
      toolTransform: false,
      storage: false,
      rpc: false,
    });
    expect(
      hostOffer({
        get session() {
          throw new Error("no");
        },
      }),
    ).toMatchObject({ sessionHooks: false });
  });

  test("a tool editor that takes the tool alone (2.0.26, the trunk) and one that takes a name first (efeff6374)", () => {
    expect(takesToolAlone({ add: (_tool: unknown) => undefined })).toBe(true);
    expect(takesToolAlone({ add: (_name: string, _tool: unknown, _options?: unknown) => undefined })).toBe(false);
    expect(takesToolAlone({})).toBe(false);
    expect(takesToolAlone(undefined)).toBe(false);
  });
});

describe("the rule tool every revision takes", () => {
  const tool = ruleToolInfo(async (input) => `read ${JSON.stringify(input)}`);

  test("a Standard Schema input carrying the plain schema (2.0.26), and the plain schema as `jsonSchema` (the trunk's dynamic tools)", () => {
    expect(tool.input["~standard"].jsonSchema.input({ target: "draft-2020-12" })).toEqual(RULE_TOOL_INPUT);
    expect(tool.input["~standard"].jsonSchema.output({ target: "draft-07" })).toEqual(RULE_TOOL_INPUT);
    expect(tool.jsonSchema).toEqual(RULE_TOOL_INPUT);
    // Each caller gets its own copy.
    expect(tool.input["~standard"].jsonSchema.input()).not.toBe(tool.input["~standard"].jsonSchema.input());
    expect(tool).toMatchObject({ name: "rule", options: { codemode: false } });
    expect("output" in tool).toBe(false);
  });

  test("the call is checked: a name, a non-empty string", () => {
    expect(ruleToolCall({ name: "security" })).toEqual({ value: { name: "security" } });
    expect(ruleToolCall({ name: " " })).toMatchObject({ issues: [{ path: ["name"] }] });
    expect(ruleToolCall(null)).toMatchObject({ issues: [{ message: "Expected an object with the rule's name" }] });
  });

  test("its answer: `{ structured, content }`, read as the same text by both", async () => {
    await expect(tool.execute({ name: "a" }, { sessionID: "ses" })).resolves.toEqual({
      structured: {},
      content: [{ type: "text", text: 'read {"name":"a"}' }],
    });
  });
});
