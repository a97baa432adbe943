/**
 * The engine over a fake port, no host: the host-neutral calls of
 * `engine/contract.ts` in, the port's sends and reads and the calls' answers
 * out. What a user would notice: one silent delivery per session, rules
 * carried by the message or tool result that activated them, a compaction's
 * window given its rules again, a late copy hidden, a failed send retried,
 * a forgotten session freed everywhere and never prompted again.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { engineDepsOver } from "../support/opencode-1-engine.js";
import type { RulesPrompt } from "../../src/engine/contract.js";
import { fakePort } from "../support/fake-port.js";
import { type RunningRulebook, startRulebook } from "../../src/engine/rulebook.js";
import { type TempProject, tempProject } from "../support/fake-opencode.js";

let project: TempProject;
let port: ReturnType<typeof fakePort>;
let rulebook: RunningRulebook;
const logged: string[] = [];

async function start(labels?: Record<string, string>) {
  rulebook = await startRulebook({
    ...engineDepsOver(project, logged),
    port,
    promptTimeoutMs: 100,
    ...(labels ? { labels } : {}),
  });
}

beforeEach(async () => {
  project = await tempProject();
  port = fakePort();
  logged.length = 0;
  await project.writeRule("project", "style.md", "Write small functions.\n");
  await project.writeRule("project", "typescript.md", "---\nglobs: src/**/*.ts\n---\nPrefer strict types.\n");
  await project.writeRule(
    "project",
    "migrations.md",
    "---\nkeywords: [migration]\n---\nFollow the migration checklist.\n",
  );
  await start();
});
afterEach(async () => {
  rulebook.dispose();
  await project.cleanup();
});

/** A call's result whose arguments name `files`. */
const result = (tool: string, files: string[]) => ({ tool, readCall: () => ({ files, changes: [] }) });
const turn = (sessionID: string, text: string, created = 5_000) =>
  rulebook.userTurn({ sessionID, texts: [text], files: [], created });

describe("the engine over a fake port", () => {
  test("a new session gets one silent delivery, as the agent it was seen with, marked in neutral words", async () => {
    await rulebook.sessionSeen({ id: "s1", agent: "build", hasHistory: false });
    await rulebook.sessionSeen({ id: "s1", agent: "build", hasHistory: false });
    expect(port.sent).toHaveLength(1);
    expect(port.sent[0]).toMatchObject({
      sessionID: "s1",
      agent: "build",
      marker: { kind: "rules", rules: ["style"], trigger: "new-session" },
    });
    expect(rulebook.report("s1")?.delivered).toEqual(["style"]);
  });

  test("a user's message carries the rules its words activate; its date sorts after the rules message", async () => {
    await rulebook.sessionSeen({ id: "s1", hasHistory: false });
    const answer = await turn("s1", "write the migration for users", 1_001);
    expect(answer.rules?.marker).toMatchObject({ rules: ["migrations"], trigger: "message" });
    expect(answer.created).toBe(1_002);
    expect(await turn("s1", "another migration")).toEqual({});
  });

  test("a first message before any delivery carries every rule itself", async () => {
    const answer = await turn("s2", "hello");
    expect(answer.rules?.marker).toMatchObject({ rules: ["style"], trigger: "first-message" });
    expect(port.sent).toHaveLength(0);
  });

  test("a tool that touches a file gives the rules its glob activates with its result, once", async () => {
    await rulebook.sessionSeen({ id: "s1", hasHistory: false });
    await rulebook.toolAboutToRun("s1", { tool: "read", files: ["src/app.ts"], changes: [] });
    const rules = await rulebook.toolResult("s1", result("read", ["src/app.ts"]));
    expect(rules?.marker).toMatchObject({ rules: ["typescript"], trigger: "read" });
    expect(await rulebook.toolResult("s1", result("read", ["src/app.ts"]))).toBeUndefined();
    // A listing counts only the paths inside the project.
    expect(rulebook.report("s1")?.files).toEqual(["src/app.ts"]);
    await rulebook.toolResult("s1", {
      ...result("glob", []),
      listed: [`${project.projectDir}/src/b.ts`, "/elsewhere/c.ts"],
    });
    expect(rulebook.report("s1")?.files).toEqual(["src/app.ts", "src/b.ts"]);
  });

  test("the text a call brought in activates a rule with a content condition: a read's file, a write kept from before it ran", async () => {
    await project.writeRule("project", "legacy.md", "---\nfileContains: legacyFetch(\n---\nUse fetchJson.\n");
    rulebook.dispose();
    await start();
    await rulebook.sessionSeen({ id: "s1", hasHistory: false });
    const read = await rulebook.toolResult("s1", { ...result("read", ["src/a.md"]), fileText: () => "legacyFetch(1)" });
    expect(read?.marker.rules).toEqual(["legacy"]);
    await rulebook.sessionSeen({ id: "s2", hasHistory: false });
    const changes = [{ kind: "write" as const, path: "notes/b.md", content: "legacyFetch(2)" }];
    await rulebook.toolAboutToRun("s2", { tool: "write", callID: "w1", files: ["notes/b.md"], changes });
    const unread = () => {
      throw new Error("the arguments were read again");
    };
    const written = await rulebook.toolResult("s2", { tool: "write", callID: "w1", readCall: unread });
    expect(written?.marker.rules).toEqual(["legacy"]);
    expect(rulebook.report("s2")?.files).toEqual(["notes/b.md"]);
  });

  test("a restarted window gets every active rule again; the host's late word for the same compaction sends nothing more", async () => {
    await rulebook.sessionSeen({ id: "s1", hasHistory: false });
    await turn("s1", "a migration");
    rulebook.compactionBegan("s1");
    port.compact("s1");
    await rulebook.windowRestarted("s1", { agent: "build" });
    expect(port.sent).toHaveLength(2);
    expect(port.sent[1]?.marker).toMatchObject({ rules: ["migrations", "style"], trigger: "compaction" });
    await rulebook.compactionEnded("s1");
    expect(port.sent).toHaveLength(2);
  });

  test("a refused send is retried, and its failure logged under the host's word for the delivery", async () => {
    rulebook.dispose();
    await start({ "new-session": "host.session-born" });
    port.refuse = 1;
    await rulebook.sessionSeen({ id: "s1", hasHistory: false });
    expect(port.sent).toHaveLength(2);
    expect(
      logged.some((line) => line.startsWith("error: Rules delivery to session s1 on host.session-born failed (try 1)")),
    ).toBe(true);
    expect(rulebook.report("s1")?.delivered).toEqual(["style"]);
  });

  test("a send that times out is looked for in the window before any retry: never sent twice", async () => {
    port.hang = 1;
    await rulebook.sessionSeen({ id: "s1", hasHistory: false });
    // The first try gave up; the fake stored nothing, so the retry sends once more, after reading the window.
    expect(port.sent).toHaveLength(2);
    expect(port.reads).toBe(1);
    expect(port.sent[0]?.marker.delivery).not.toBe(port.sent[1]?.marker.delivery);
  });

  test("the plugin's own message stored after the rules went another way is hidden", async () => {
    port.hang = 1;
    const seen = rulebook.sessionSeen({ id: "s1", hasHistory: false });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const first = port.sent[0];
    // The user's message carries the rules while the silent prompt is stuck.
    await turn("s1", "hi");
    await seen;
    expect(await rulebook.ownRulesStored("s1", first?.marker as RulesPrompt["marker"], 2_000)).toEqual({ hide: true });
  });

  test("a forgotten session is freed for every holder and never prompted again", async () => {
    const forgotten: Array<string | undefined> = [];
    rulebook.onForget((id) => forgotten.push(id));
    await rulebook.sessionSeen({ id: "s1", hasHistory: false });
    rulebook.sessionGone("s1");
    expect(forgotten).toEqual(["s1"]);
    expect(rulebook.report("s1")).toBeUndefined();
    await rulebook.sessionSeen({ id: "s1", hasHistory: false });
    expect(await turn("s1", "a migration")).toEqual({});
    expect(port.sent).toHaveLength(1);
    rulebook.dispose();
    expect(forgotten).toEqual(["s1", undefined]);
  });

  test("the rule tool's answer records the rule in the window and as active", async () => {
    await rulebook.sessionSeen({ id: "s1", hasHistory: false });
    const read = rulebook.ruleRequested("s1", "migrations");
    expect(read.output).toContain("Follow the migration checklist.");
    expect(read.marker).toMatchObject({ rules: ["migrations"], trigger: "rule" });
    expect(rulebook.report("s1")?.active).toEqual([{ name: "migrations", reason: expect.any(String) }]);
    expect(rulebook.report("s1")?.delivered).toEqual(["migrations", "style"]);
  });
});
