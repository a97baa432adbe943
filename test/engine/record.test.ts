/**
 * What the record keeps of a session, through the engine and a fake port:
 * each thing the plugin did with a rule, once, with the session's agent and
 * model, what brought each delivery, and whether a refused call was
 * corrected or given up. No host: the host-neutral calls of
 * `engine/contract.ts` in, the record's lines out.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { type RunningRulebook, startRulebook } from "../../src/engine/rulebook.js";
import { readToolCall } from "../../src/hosts/opencode/tool-call.js";
import type { RecordEvent } from "../../src/record/event.js";
import type { RecordSink } from "../../src/record/store.js";
import { ruleTokens } from "../../src/render/tokens.js";
import { type TempProject, tempProject } from "../support/fake-opencode.js";
import { fakePort } from "../support/fake-port.js";
import { engineDepsOver } from "../support/opencode-1-engine.js";

let project: TempProject;
let rulebook: RunningRulebook;
let port: ReturnType<typeof fakePort>;
let recorded: RecordEvent[];
let closed: number;
const model = { providerID: "acme", modelID: "coder-1" };

/** A sink that keeps what it is given, as the writer would queue it. */
function memorySink(): RecordSink {
  return {
    add: (event) => void recorded.push(event),
    flush: async () => {},
    close: async () => void closed++,
  };
}

beforeEach(async () => {
  project = await tempProject();
  recorded = [];
  closed = 0;
  await project.writeRule("project", "style.md", "Write small functions.\n");
  await project.writeRule("project", "typescript.md", "---\nglobs: src/**/*.ts\n---\nPrefer strict types.\n");
  await project.writeRule("project", "migrations.md", "---\nkeywords: [migration]\n---\nFollow the checklist.\n");
  await project.writeRule(
    "project",
    "logging.md",
    '---\nalwaysApply: false\nglobs: src/**/*.ts\nforbid:\n  - "console.log("\nforbidCommands:\n  - "git push --force"\n---\nLog through src/log.ts.\n',
  );
  await project.writeRule("project", "guide.md", "---\ndescription: How we review\nalwaysApply: false\n---\nReview.\n");
  port = fakePort();
  rulebook = await startRulebook({ ...engineDepsOver(project, []), port, record: memorySink() });
});
afterEach(async () => {
  await rulebook.dispose();
  await project.cleanup();
});

const write = (callID: string, file: string, content: string) =>
  readToolCall("write", callID, { filePath: `${project.projectDir}/${file}`, content });
const bash = (callID: string, command: string) => readToolCall("bash", callID, { command });
const turn = (text: string, created = 5_000) =>
  rulebook.userTurn({ sessionID: "s1", texts: [text], files: [], created, agent: "build", model });
/** The record's lines, shortened to what a test reads: kind, rule and the fields given. */
const lines = (...fields: Array<keyof RecordEvent>) =>
  recorded.map((event) =>
    Object.fromEntries(
      ["kind", "rule", ...fields].flatMap((f) => (f in event ? [[f, event[f as keyof RecordEvent]]] : [])),
    ),
  );

describe("the record of a session", () => {
  test("a new session's rules: delivered at its start with their size, on-request rules listed", async () => {
    await rulebook.sessionSeen({ id: "s1", agent: "build", model, hasHistory: false });
    const style = rulebook.loaded().rules.find((rule) => rule.name === "style");
    expect(recorded).toEqual([
      {
        v: 1,
        at: expect.any(Number),
        kind: "delivered",
        project: project.projectDir,
        session: "s1",
        agent: "build",
        model: "acme/coder-1",
        rule: "style",
        scope: "project",
        source: ".opencode/rules/style.md",
        tokens: style && ruleTokens(style),
        trigger: "session-start",
      },
      expect.objectContaining({ kind: "listed", rule: "guide" }),
    ]);
  });

  test("what brought each rule: a keyword, a file, the rule tool, a compaction", async () => {
    await rulebook.sessionSeen({ id: "s1", agent: "build", model, hasHistory: false });
    await turn("plan the migration");
    await rulebook.toolAboutToRun("s1", readToolCall("read", "c1", { filePath: `${project.projectDir}/src/a.ts` }));
    await rulebook.toolResult("s1", { tool: "read", callID: "c1", readCall: () => ({ files: [], changes: [] }) });
    rulebook.ruleRequested("s1", "guide");
    rulebook.compactionBegan("s1");
    port.compact("s1");
    await rulebook.windowRestarted("s1", { agent: "build", model });
    const delivered = recorded.filter((event) => event.kind === "delivered" || event.kind === "requested");
    expect(delivered.map(({ kind, rule, trigger }) => [kind, rule, trigger])).toEqual([
      ["delivered", "style", "session-start"],
      ["delivered", "migrations", "keyword"],
      ["delivered", "logging", "file"],
      ["delivered", "typescript", "file"],
      ["requested", "guide", undefined],
      ["delivered", "guide", "rule-tool"],
      ["delivered", "guide", "compaction"],
      ["delivered", "logging", "compaction"],
      ["delivered", "migrations", "compaction"],
      ["delivered", "style", "compaction"],
      ["delivered", "typescript", "compaction"],
    ]);
  });

  test("a refused write, then the same write fixed: refused and corrected, with the call's number, file and line", async () => {
    await rulebook.sessionSeen({ id: "s1", agent: "build", model, hasHistory: false });
    recorded.length = 0;
    const refused = await rulebook.toolAboutToRun("s1", write("c1", "src/a.ts", "const a = 1;\nconsole.log(a);\n"));
    expect(refused.refusal).toBeDefined();
    expect((await rulebook.toolAboutToRun("s1", write("c2", "src/a.ts", "const a = 1;\n"))).refusal).toBeUndefined();
    await turn("thanks");
    expect(lines("tool", "file", "line", "call", "pattern", "trigger")).toEqual([
      // The refusal gives the rule's text: it costs context as a delivery does.
      { kind: "delivered", rule: "logging", trigger: "refusal" },
      { kind: "refused", rule: "logging", tool: "write", file: "src/a.ts", line: 2, call: 1, pattern: "console.log(" },
      { kind: "corrected", rule: "logging", tool: "write", file: "src/a.ts" },
      // The turn is over: its calls are counted, once; the next message brings the rule of the file written.
      { kind: "tool-calls", call: 2 },
      { kind: "delivered", rule: "typescript", trigger: "file" },
    ]);
  });

  test("a call on another file, or of another tool, corrects nothing; the user's next message gives the refusal up", async () => {
    await rulebook.sessionSeen({ id: "s1", agent: "build", model, hasHistory: false });
    await rulebook.toolAboutToRun("s1", write("c1", "src/a.ts", "console.log(1);\n"));
    await rulebook.toolAboutToRun("s1", write("c2", "src/b.ts", "const b = 2;\n"));
    await rulebook.toolAboutToRun(
      "s1",
      readToolCall("edit", "c3", { filePath: `${project.projectDir}/src/a.ts`, oldString: "x", newString: "y" }),
    );
    expect(recorded.filter((event) => event.kind === "corrected")).toEqual([]);
    await turn("go on");
    expect(lines("tool", "file").filter(({ kind }) => kind === "gave-up")).toEqual([
      { kind: "gave-up", rule: "logging", tool: "write", file: "src/a.ts" },
    ]);
  });

  test("a refused command is corrected by the next command that goes through; one left at the end is given up", async () => {
    await rulebook.sessionSeen({ id: "s1", agent: "build", model, hasHistory: false });
    await rulebook.toolAboutToRun("s1", bash("c1", "git push --force origin main"));
    await rulebook.toolAboutToRun("s1", bash("c2", "git push origin main"));
    await rulebook.toolAboutToRun("s1", bash("c3", "git push --force"));
    await rulebook.dispose();
    expect(lines("tool", "call").filter(({ kind }) => kind !== "delivered" && kind !== "listed")).toEqual([
      { kind: "refused", rule: "logging", tool: "bash", call: 1 },
      { kind: "corrected", rule: "logging", tool: "bash" },
      { kind: "refused", rule: "logging", tool: "bash", call: 3 },
      { kind: "gave-up", rule: "logging", tool: "bash" },
      { kind: "tool-calls", call: 3 },
    ]);
    expect(closed).toBe(1);
  });

  test("a deleted session's refusal still awaited is given up, once", async () => {
    await rulebook.sessionSeen({ id: "s1", hasHistory: false });
    await rulebook.toolAboutToRun("s1", bash("c1", "git push --force"));
    rulebook.sessionGone("s1");
    rulebook.sessionGone("s1");
    expect(recorded.filter((event) => event.kind === "gave-up")).toHaveLength(1);
  });

  test("rules left out by the budget are recorded as left out, not delivered", async () => {
    await rulebook.dispose();
    await project.writeRule("project", "big.md", `${"A long rule. ".repeat(200)}\n`);
    const deps = engineDepsOver(project, []);
    port = fakePort();
    rulebook = await startRulebook({
      ...deps,
      options: { ...deps.options, maxMessageBytes: 1024 },
      port,
      record: memorySink(),
    });
    await rulebook.sessionSeen({ id: "s1", hasHistory: false });
    // Each message names it again; the record counts it once a window.
    await turn("a migration");
    await turn("and another");
    expect(lines().filter(({ rule }) => rule === "big")).toEqual([{ kind: "left-out", rule: "big" }]);
    expect(lines().filter(({ rule }) => rule === "style")).toEqual([{ kind: "delivered", rule: "style" }]);
    rulebook.compactionBegan("s1");
    port.compact("s1");
    await rulebook.windowRestarted("s1", {});
    expect(lines().filter(({ rule }) => rule === "big")).toEqual([
      { kind: "left-out", rule: "big" },
      { kind: "left-out", rule: "big" },
    ]);
  });
});
