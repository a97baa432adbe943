/**
 * Smoke tests of the e2e harness itself: a real `opencode serve` talking to
 * the fake model, offline. Proves prompts reach the model, replies reach the
 * session, scripted tool calls run and feed back, noReply makes no model
 * call, auto-compaction is recognisable, and plugins load from both
 * `.opencode/plugins/` and the `plugin` config array (with options).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { isMainRequest, isSummaryRequest, isTitleRequest, lastUserText, toolResults } from "./harness/fake-model.js";
import { startFakeModel } from "./harness/fake-model-server.js";
import { startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import { probePluginSource, readProbe } from "./harness/probe.js";
import {
  assistantMessages,
  createSession,
  getMessages,
  messageText,
  prompt,
  sleep,
  toolParts,
  unwrap,
  userMessages,
  waitFor,
  waitForIdle,
} from "./harness/wait.js";

describe("e2e harness", { timeout: 60_000 }, () => {
  let oc: OpencodeInstance;
  // A second probe, loaded through the `plugin` array with options.
  const extDir = fs.mkdtempSync(path.join(os.tmpdir(), "rulebook-e2e-ext-"));
  const extPlugin = path.join(extDir, "array-probe.js");
  const extLog = path.join(extDir, "array-probe.jsonl");
  fs.writeFileSync(extPlugin, probePluginSource(extLog));

  beforeAll(async () => {
    oc = await startOpencode({
      probe: true,
      plugins: [[extPlugin, { greeting: "hi" }]],
      projectFiles: { "notes/hello.txt": "secret-token-42\n", "README.md": "# demo project\n" },
    });
  }, 60_000);

  afterAll(async () => {
    await oc?.stop();
    fs.rmSync(extDir, { recursive: true, force: true });
  });

  beforeEach(() => oc.fakeModel.reset());

  test("prompt reaches the fake model and its reply reaches the session", async () => {
    const session = await createSession(oc.client);
    const res = await prompt(oc.client, session.id, "hello from e2e");
    expect(res.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)).toEqual(["ok"]);

    const main = oc.fakeModel.mainRequests();
    expect(main).toHaveLength(1);
    expect(main[0]!.sessionID).toBe(session.id);
    expect(lastUserText(main[0]!)).toContain("hello from e2e");
    expect(main[0]!.body.stream).toBe(true);
    expect(main[0]!.body.tools?.map((t) => t.function.name)).toEqual(expect.arrayContaining(["read", "write", "task"]));

    const msgs = await waitForIdle(oc.client, session.id);
    expect(userMessages(msgs).map((m) => messageText(m))).toEqual(["hello from e2e"]);
    expect(assistantMessages(msgs).map((m) => messageText(m))).toEqual(["ok"]);

    // OpenCode asks the small model for a title, concurrently; it is classified and answered separately.
    const [title] = await oc.fakeModel.waitForRequests(1, { filter: isTitleRequest });
    expect(isMainRequest(title!)).toBe(false);
    expect(title!.sessionID).toBe(session.id);
    await waitFor(
      async () => unwrap(await oc.client.session.get({ path: { id: session.id } })).title === "Test session",
      {
        message: "session title",
      },
    );

    // The probe plugin in .opencode/plugins saw the project and the message.
    const probe = oc.probe();
    expect(probe.find((r) => r.hook === "init")).toMatchObject({ directory: oc.projectDir, worktree: oc.projectDir });
    expect(
      probe.some((r) => r.hook === "chat.message" && r.sessionID === session.id && r.text === "hello from e2e"),
    ).toBe(true);
    await waitFor(() =>
      oc.probe().some((r) => r.hook === "event" && r.type === "session.idle" && r.sessionID === session.id),
    );

    // The probe given in the `plugin` array was loaded with its options.
    expect(readProbe(extLog).find((r) => r.hook === "init")).toMatchObject({
      directory: oc.projectDir,
      options: { greeting: "hi" },
    });
  });

  test("a scripted tool call is executed and its result goes back to the model", async () => {
    const file = path.join(oc.projectDir, "notes", "hello.txt");
    oc.fakeModel.enqueue({ toolCalls: [{ name: "read", arguments: { filePath: file } }] }, "I read it");
    const session = await createSession(oc.client);
    await prompt(oc.client, session.id, "please read the notes");

    const main = oc.fakeModel.mainRequests();
    expect(main).toHaveLength(2);
    const results = toolResults(main[1]!);
    expect(results).toHaveLength(1);
    expect(results[0]!.text).toContain("secret-token-42");
    const call = main[1]!.body.messages.find((m) => m.role === "assistant" && m.tool_calls)?.tool_calls?.[0];
    expect(call?.function.name).toBe("read");
    expect(results[0]!.tool_call_id).toBe(call?.id);

    const msgs = await waitForIdle(oc.client, session.id);
    const [read] = toolParts(msgs, "read");
    expect(read?.state.status).toBe("completed");
    expect(
      assistantMessages(msgs)
        .map((m) => messageText(m))
        .join("|"),
    ).toContain("I read it");
    expect(
      oc
        .probe()
        .filter((r) => r.hook.startsWith("tool.execute") && r.tool === "read")
        .map((r) => r.hook),
    ).toEqual(["tool.execute.before", "tool.execute.after"]);
  });

  test("noReply: true stores the message without calling the model", async () => {
    const session = await createSession(oc.client);
    await prompt(oc.client, session.id, "just context", { noReply: true });
    await sleep(750);
    expect(oc.fakeModel.requestsFor(session.id)).toHaveLength(0);
    expect(oc.fakeModel.requests).toHaveLength(0);
    const msgs = await getMessages(oc.client, session.id);
    expect(msgs.map((m) => m.info.role)).toEqual(["user"]);
    expect(messageText(msgs[0]!)).toBe("just context");
  });

  test("a huge reported prompt size triggers automatic compaction (summary request)", async () => {
    oc.fakeModel.enqueue({ text: "big answer", usage: { prompt_tokens: 99_000, completion_tokens: 500 } });
    const session = await createSession(oc.client);
    await prompt(oc.client, session.id, "fill the context");
    const [summary] = await oc.fakeModel.waitForRequests(1, { filter: isSummaryRequest });
    expect(isMainRequest(summary!)).toBe(false);
    expect(summary!.sessionID).toBe(session.id);
    await waitFor(
      () => oc.probe().some((r) => r.hook === "event" && r.type === "session.compacted" && r.sessionID === session.id),
      {
        message: "session.compacted",
      },
    );
    const msgs = await waitForIdle(oc.client, session.id);
    expect(msgs.some((m) => m.info.role === "assistant" && m.info.summary === true)).toBe(true);
    // After an automatic compaction OpenCode continues the turn with a synthetic user message.
    const after = oc.fakeModel.mainRequests(session.id).filter((r) => r.seq > summary!.seq);
    expect(after.length).toBeGreaterThanOrEqual(1);
  });

  test("a scripted task call runs a subagent in a child session", async () => {
    oc.fakeModel.enqueue(
      {
        toolCalls: [
          { name: "task", arguments: { description: "sub job", prompt: "do the sub job", subagent_type: "general" } },
        ],
      },
      "sub done", // the subagent's turn
      "parent done", // the parent's turn after the task result
    );
    const session = await createSession(oc.client);
    await prompt(oc.client, session.id, "delegate please");
    const children = unwrap(await oc.client.session.children({ path: { id: session.id } }));
    expect(children).toHaveLength(1);
    const child = children[0]!;
    const sub = oc.fakeModel.mainRequests(child.id);
    expect(sub).toHaveLength(1);
    expect(lastUserText(sub[0]!)).toContain("do the sub job");
    const parent = oc.fakeModel.mainRequests(session.id);
    expect(parent).toHaveLength(2);
    expect(toolResults(parent[1]!)[0]!.text).toContain("sub done");
    const msgs = await waitForIdle(oc.client, session.id);
    expect(
      assistantMessages(msgs)
        .map((m) => messageText(m))
        .at(-1),
    ).toBe("parent done");
  });
});

describe("fake model", () => {
  test("answers non-streamed completions, tool calls and the models list", async () => {
    const fm = await startFakeModel();
    try {
      fm.enqueue({
        toolCalls: [{ name: "read", arguments: { filePath: "/x" }, id: "call_1" }],
        usage: { prompt_tokens: 7 },
      });
      type Reply = { choices: unknown[]; usage: { prompt_tokens: number } };
      const post = async (body: unknown) =>
        (
          await fetch(`${fm.url}/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
          })
        ).json() as Promise<Reply>;
      const a = await post({ model: "fake-model", messages: [{ role: "user", content: "hi" }], stream: false });
      expect(a.choices[0]).toMatchObject({
        finish_reason: "tool_calls",
        message: {
          tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: '{"filePath":"/x"}' } }],
        },
      });
      expect(a.usage.prompt_tokens).toBe(7);
      const b = await post({
        model: "fake-model",
        messages: [{ role: "user", content: [{ type: "text", text: "again" }] }],
      });
      expect(b.choices[0]).toMatchObject({ finish_reason: "stop", message: { content: "ok" } });
      expect(fm.requests.map((r) => lastUserText(r))).toEqual(["hi", "again"]);
      const models = (await fetch(`${fm.url}/models`).then((r) => r.json())) as { data: Array<{ id: string }> };
      expect(models.data.map((m) => m.id)).toEqual(["fake-model"]);
    } finally {
      await fm.close();
    }
  });
});
