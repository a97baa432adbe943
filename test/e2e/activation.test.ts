/**
 * Activation inside the real OpenCode (issue 4, "Done when", e2e part): rules
 * that apply only when they matter reach the model exactly when they do, in
 * the message that activated them, and never cost an extra model turn.
 * The fake model's recorded requests are what the model saw.
 */
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { isMainRequest, lastUserText, requestText, type RecordedRequest } from "./harness/fake-model.js";
import { DIST_PLUGIN, startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import { createSession, getMessages, prompt, sleep, toolParts, unwrap, waitFor, waitForIdle } from "./harness/wait.js";

/** Each rule's text carries a unique mark, so a request can be searched for it. */
const MARK = {
  always: "MARK-ALWAYS-7d1",
  glob: "MARK-GLOB-TS-3a9",
  keyword: "MARK-KEYWORD-MIGRATION-5c2",
  manual: "MARK-MANUAL-8e4",
  onRequest: "MARK-ON-REQUEST-1f6",
} as const;

const RULES: Record<string, string> = {
  "house.md": `---\nalwaysApply: true\n---\n# House\n- ${MARK.always}: be brief.\n`,
  "ts-code.md": `---\nglobs: src/**/*.ts\n---\n# TypeScript\n- ${MARK.glob}: no \`any\`.\n`,
  "migrations.md": `---\nkeywords: [migration, migrations]\n---\n# Migrations\n- ${MARK.keyword}: every migration has a down step.\n`,
  "release-checklist.md": `---\nalwaysApply: false\n---\n# Release checklist\n- ${MARK.manual}: bump the version first.\n`,
  "secrets.md": `---\ndescription: Handling secrets and credentials\nalwaysApply: false\n---\n# Secrets\n- ${MARK.onRequest}: never print a token.\n`,
};

const count = (text: string, needle: string) => text.split(needle).length - 1;
const has = (r: RecordedRequest, mark: string) => requestText(r).includes(mark);
/** Text of the last message of a request (the tool result, after a tool call). */
const lastMessage = (r: RecordedRequest) => r.body.messages.at(-1)!;
const lastText = (r: RecordedRequest) => {
  const c = lastMessage(r).content;
  return typeof c === "string"
    ? c
    : Array.isArray(c)
      ? c.map((p) => (p && typeof p === "object" && "text" in p ? String(p.text) : "")).join("\n")
      : "";
};

describe("activation in the real OpenCode", { timeout: 30_000 }, () => {
  let oc: OpencodeInstance;

  beforeAll(async () => {
    oc = await startOpencode({
      pluginPath: DIST_PLUGIN,
      projectRules: RULES,
      projectFiles: {
        "src/app.ts": "export const answer = 42;\n",
        "README.md": "# fixture\n",
      },
    });
  }, 30_000);

  afterAll(async () => {
    await oc?.stop();
  });

  beforeEach(() => oc.fakeModel.reset());

  /** Sends a prompt and returns the main model requests of that turn. */
  async function turn(sessionID: string, text: string): Promise<RecordedRequest[]> {
    const before = oc.fakeModel.mainRequests(sessionID).length;
    await prompt(oc.client, sessionID, text);
    await waitForIdle(oc.client, sessionID);
    return oc.fakeModel.mainRequests(sessionID).slice(before);
  }

  /** A session whose silent rules message is stored. */
  async function newSession(): Promise<string> {
    const { id } = await createSession(oc.client);
    await waitFor(
      async () =>
        (await getMessages(oc.client, id)).some((m) =>
          m.parts.some((p) => p.type === "text" && p.text.includes(MARK.always)),
        ),
      {
        message: "rules message stored",
        timeoutMs: 10_000,
      },
    );
    return id;
  }

  /** No request of the session after the last turn: nothing ran on its own. */
  async function expectNoStrayRequests(sessionID: string, mainSoFar: number): Promise<void> {
    await sleep(300);
    expect(oc.fakeModel.mainRequests(sessionID)).toHaveLength(mainSoFar);
  }

  test("a glob rule is absent until a matching file is read, then arrives with that read's result", async () => {
    const id = await newSession();
    const t1 = await turn(id, "Hello, what is this project?");
    expect(t1).toHaveLength(1);

    oc.fakeModel.enqueue(
      { toolCalls: [{ name: "read", arguments: { filePath: path.join(oc.projectDir, "src", "app.ts") } }] },
      "It exports answer.",
    );
    const t2 = await turn(id, "Look at the application code, please.");
    expect(t2).toHaveLength(2); // the prompt, then the read result: no extra turn

    const afterRead = t2[1]!;
    const earlier = oc.fakeModel.requestsFor(id).filter((r) => r.seq < afterRead.seq);
    expect(earlier.length).toBeGreaterThanOrEqual(2);
    for (const r of earlier) expect(has(r, MARK.glob)).toBe(false);

    expect(lastMessage(afterRead).role).toBe("tool");
    expect(lastText(afterRead)).toContain("export const answer = 42;");
    expect(lastText(afterRead)).toContain(MARK.glob);
    expect(lastText(afterRead).indexOf("export const answer")).toBeLessThan(lastText(afterRead).indexOf(MARK.glob));
    expect(count(requestText(afterRead), MARK.glob)).toBe(1);
    await expectNoStrayRequests(id, 3);
  });

  test("a glob rule arrives with the result of a write that creates a matching file", async () => {
    const id = await newSession();
    const target = path.join(oc.projectDir, "src", "feature", "created-now.ts");
    oc.fakeModel.enqueue(
      { toolCalls: [{ name: "write", arguments: { filePath: target, content: "export const created = true;\n" } }] },
      "Created it.",
    );
    const t = await turn(id, "Create a small feature module.");
    expect(t).toHaveLength(2);

    const [first, afterWrite] = t as [RecordedRequest, RecordedRequest];
    for (const r of oc.fakeModel.requestsFor(id).filter((r) => r.seq < afterWrite.seq))
      expect(has(r, MARK.glob)).toBe(false);
    expect(has(first, MARK.glob)).toBe(false);
    expect(lastMessage(afterWrite).role).toBe("tool");
    expect(lastText(afterWrite)).toContain(MARK.glob);
    expect(count(requestText(afterWrite), MARK.glob)).toBe(1);

    const msgs = await getMessages(oc.client, id);
    const write = msgs.flatMap((m) => m.parts).find((p) => p.type === "tool" && p.tool === "write");
    expect(write && write.type === "tool" && write.state.status).toBe("completed");
    await expectNoStrayRequests(id, 2);
  });

  test("a keyword rule arrives in the user message holding the keyword, not before", async () => {
    const id = await newSession();
    const t1 = await turn(id, "Good morning, summarise the repository layout.");
    expect(t1).toHaveLength(1);
    expect(has(t1[0]!, MARK.keyword)).toBe(false);

    const text = "Now write the next Migration for the orders table.";
    const t2 = await turn(id, text);
    expect(t2).toHaveLength(1);
    const user = lastUserText(t2[0]!);
    expect(user).toContain(MARK.keyword);
    expect(user).toContain(text);
    expect(user.indexOf(MARK.keyword)).toBeLessThan(user.indexOf(text));
    expect(count(requestText(t2[0]!), MARK.keyword)).toBe(1);

    // Once delivered, the next turn does not repeat it.
    const t3 = await turn(id, "And one more migration for invoices.");
    expect(t3).toHaveLength(1);
    expect(count(requestText(t3[0]!), MARK.keyword)).toBe(1);
    await expectNoStrayRequests(id, 3);
  });

  test("an @mention activates a manual rule in that user message", async () => {
    const id = await newSession();
    const t1 = await turn(id, "Prepare the release notes.");
    expect(t1).toHaveLength(1);
    expect(has(t1[0]!, MARK.manual)).toBe(false);
    for (const r of oc.fakeModel.requestsFor(id)) expect(has(r, MARK.manual)).toBe(false);

    const t2 = await turn(id, "Cut the release, following @release-checklist.");
    expect(t2).toHaveLength(1);
    const user = lastUserText(t2[0]!);
    expect(user).toContain(MARK.manual);
    expect(user.indexOf(MARK.manual)).toBeLessThan(user.indexOf("Cut the release"));
    expect(count(requestText(t2[0]!), MARK.manual)).toBe(1);
    await expectNoStrayRequests(id, 2);
  });

  test("the rule tool returns an on-request rule; the first message only lists it", async () => {
    const id = await newSession();
    oc.fakeModel.enqueue(
      { toolCalls: [{ name: "rule", arguments: { name: "secrets" } }] },
      { toolCalls: [{ name: "rule", arguments: { name: "no-such-rule" } }] },
      "Understood.",
    );
    const t = await turn(id, "Rotate the API credentials.");
    expect(t).toHaveLength(3);

    const [first, afterRule, afterUnknown] = t as [RecordedRequest, RecordedRequest, RecordedRequest];
    expect(first.body.tools?.map((tool) => tool.function.name)).toContain("rule");
    // Listed by name and description, its text not sent.
    expect(requestText(first)).toMatch(/secrets: Handling secrets and credentials/);
    expect(has(first, MARK.onRequest)).toBe(false);

    expect(lastMessage(afterRule).role).toBe("tool");
    expect(lastText(afterRule)).toContain(MARK.onRequest);
    expect(count(requestText(afterRule), MARK.onRequest)).toBe(1);

    expect(lastText(afterUnknown)).toMatch(/no rule named "no-such-rule"/);
    expect(lastText(afterUnknown)).toContain("secrets");
    // OpenCode stores the plugin's mark with the answer that gave a rule (the Rules panel reads it), and none with the other.
    const [read, unknown] = toolParts(await getMessages(oc.client, id), "rule").map(
      (part) => (part.state as { metadata?: Record<string, unknown> }).metadata?.["opencode-rulebook"],
    );
    expect(read).toMatchObject({ kind: "rules", rules: ["secrets"], why: [{ reason: { kind: "rule-tool" } }] });
    expect(unknown).toBeUndefined();
    await expectNoStrayRequests(id, 3);
  });

  test("after compaction, every rule active in the session is in the next request exactly once", async () => {
    const id = await newSession();
    oc.fakeModel.enqueue(
      { toolCalls: [{ name: "read", arguments: { filePath: path.join(oc.projectDir, "src", "app.ts") } }] },
      { toolCalls: [{ name: "rule", arguments: { name: "secrets" } }] },
      "Plan ready.",
    );
    const t1 = await turn(id, "Plan a migration for the users table, following @release-checklist.");
    expect(t1).toHaveLength(3);
    const active = Object.values(MARK);
    for (const mark of active) expect(count(requestText(t1[2]!), mark), mark).toBe(1);

    const mainBefore = oc.fakeModel.mainRequests(id).length;
    unwrap(
      await oc.client.session.summarize({ path: { id }, body: { providerID: "fake", modelID: "fake-model" } }),
      "session.summarize",
    );
    await waitFor(
      async () => {
        const msgs = await getMessages(oc.client, id);
        const summaryAt = msgs.findIndex((m) => m.info.role === "assistant" && m.info.summary === true);
        return (
          summaryAt >= 0 &&
          msgs.slice(summaryAt).some((m) => m.parts.some((p) => p.type === "text" && p.text.includes(MARK.always)))
        );
      },
      { message: "rules re-delivered after compaction", timeoutMs: 10_000 },
    );
    await waitForIdle(oc.client, id);
    expect(oc.fakeModel.mainRequests(id)).toHaveLength(mainBefore); // compaction and re-delivery: no model turn

    const t2 = await turn(id, "Carry on.");
    expect(t2).toHaveLength(1);
    const text = requestText(t2[0]!);
    expect(text).toContain("What did we do so far?"); // the compacted window
    for (const mark of active) expect(count(text, mark), mark).toBe(1);
    expect(lastUserText(t2[0]!)).toContain("Carry on.");

    const t3 = await turn(id, "Anything else?");
    expect(t3).toHaveLength(1);
    for (const mark of active) expect(count(requestText(t3[0]!), mark), mark).toBe(1);
    await expectNoStrayRequests(id, mainBefore + 2);
    expect(oc.fakeModel.requestsFor(id).filter(isMainRequest)).toHaveLength(mainBefore + 2);
  });
});
