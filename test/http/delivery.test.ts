/**
 * What the plugin sends over HTTP, beyond the spec's scenarios: the request
 * bodies the real SDK client produces, concurrency, failures and options.
 */
import { beforeEach, expect, test } from "vitest";
import * as entry from "../../src/index.js";
import { RulebookPlugin } from "../../src/hosts/opencode-1/plugin.js";
import { MARKER_KEY } from "../../src/session/marker.js";
import { CREATION_GRACE_MS } from "../../src/engine/limits.js";
import { writeTree } from "../support/temp-folder.js";
import {
  sessionCreated,
  settle,
  startPlugin,
  type FakeOpencode,
  type TempProject,
  useFakeOpencode,
} from "../support/fake-opencode.js";

const fake = useFakeOpencode();
let server: FakeOpencode;
let project: TempProject;

beforeEach(async () => {
  ({ server, project } = fake);
  await project.writeRule("global", "style.md", "Global style rule.\n");
  await project.writeRule("project", "testing.md", "Project testing rule.\n");
});

test("the entry module exports one plugin for both hosts and nothing else: OpenCode 2's id and setup, OpenCode 1's server", () => {
  expect(Object.keys(entry)).toEqual(["default"]);
  expect(entry.default.id).toBe("opencode-rulebook");
  expect(typeof entry.default.setup).toBe("function");
  expect(entry.default.server).toBe(RulebookPlugin);
});

test("one prompt per delivery: noReply, one synthetic text part marked as the plugin's, global rules before project rules", async () => {
  const hooks = await startPlugin(project);
  await hooks.event?.(sessionCreated("ses_1") as never);
  expect(server.prompts).toHaveLength(1);
  const { sessionID, body } = server.prompts[0]!;
  expect(sessionID).toBe("ses_1");
  expect(body.noReply).toBe(true);
  expect(body.parts).toHaveLength(1);
  const part = body.parts[0]!;
  expect(part.type).toBe("text");
  expect(part.synthetic).toBe(true);
  expect(part.metadata?.[MARKER_KEY]).toMatchObject({
    kind: "rules",
    rules: ["style", "testing"],
    trigger: "new-session",
  });
  expect(part.text.indexOf("Global style rule.")).toBeLessThan(part.text.indexOf("Project testing rule."));
  expect(part.text).toMatch(/binding/);
  expect(part.text).toContain('file="~/.config/opencode/rules/style.md"');
  expect(part.text).toContain('file=".opencode/rules/testing.md"');
});

test("one text under two tools' names (a Cursor and a Claude Code copy) goes once; the marker names the other as its same text", async () => {
  await writeTree(project.projectDir, {
    ".cursor/rules/review.mdc": "---\nalwaysApply: true\n---\nReview every change.\n",
    ".claude/rules/code-review.md": "Review every change.\n",
  });
  const hooks = await startPlugin(project);
  await hooks.event?.(sessionCreated("ses_1") as never);
  const part = server.prompts[0]?.body.parts[0];
  expect(part?.text.split("Review every change.")).toHaveLength(2);
  expect(part?.metadata?.[MARKER_KEY]).toMatchObject({
    rules: ["style", "code-review", "testing"],
    sameText: ["review"],
    sameTextAs: ["code-review"],
  });
});

test("two session.created events for one session at once produce one delivery", async () => {
  const hooks = await startPlugin(project);
  await Promise.all([hooks.event?.(sessionCreated("ses_x") as never), hooks.event?.(sessionCreated("ses_x") as never)]);
  expect(server.prompts).toHaveLength(1);
});

test("a failed delivery is retried and succeeds without a second message", async () => {
  server.answers.push({ status: 500 });
  const hooks = await startPlugin(project);
  await hooks.event?.(sessionCreated("ses_r") as never);
  expect(server.prompts.map((prompt) => prompt.sessionID)).toEqual(["ses_r", "ses_r"]);
  await hooks.event?.(sessionCreated("ses_r") as never);
  expect(server.prompts).toHaveLength(2);
});

test("a network error is logged with the session and event, and never escapes the hook", async () => {
  server.answers.push("network-error", "network-error", "network-error");
  const hooks = await startPlugin(project);
  await expect(hooks.event?.(sessionCreated("ses_n") as never)).resolves.toBeUndefined();
  await settle();
  const errors = server.logs.filter((log) => log.level === "error");
  expect(errors).toHaveLength(3);
  expect(errors[2]?.message).toMatch(/ses_n.*session\.created.*left for the session's next event/);
}, 15_000);

test("a 404 (session deleted) is logged and the plugin keeps serving other sessions", async () => {
  server.answers.push({ status: 404 }, { status: 404 }, { status: 404 });
  const hooks = await startPlugin(project);
  await hooks.event?.(sessionCreated("ses_gone") as never);
  await hooks.event?.(sessionCreated("ses_ok") as never);
  await settle();
  expect(server.logs.some((log) => log.level === "error" && log.message.includes("404"))).toBe(true);
  expect(server.prompts.at(-1)?.sessionID).toBe("ses_ok");
}, 15_000);

test("the session's own agent and model are passed when the event carries them", async () => {
  const hooks = await startPlugin(project);
  await hooks.event?.(sessionCreated("ses_plan", { agent: "plan", model: { providerID: "fake", id: "m1" } }) as never);
  expect(server.prompts[0]?.body).toMatchObject({ agent: "plan", model: { providerID: "fake", modelID: "m1" } });
});

test("subagent sessions get the rules by default, and not with subagents: false", async () => {
  const on = await startPlugin(project);
  await on.event?.(sessionCreated("ses_child", { parentID: "ses_parent" }) as never);
  expect(server.prompts.map((prompt) => prompt.sessionID)).toEqual(["ses_child"]);
  const off = await startPlugin(project, { subagents: false });
  await off.event?.(sessionCreated("ses_child2", { parentID: "ses_parent" }) as never);
  expect(server.prompts).toHaveLength(1);
});

test("warnings about bad rule files are logged with debug off, naming file and line", async () => {
  await project.writeRule("project", "broken.md", "---\nglobs: [\n---\nText\n");
  await startPlugin(project);
  await settle();
  const warnings = server.logs.filter((log) => log.level === "warn");
  expect(warnings).toHaveLength(1);
  expect(warnings[0]?.message).toContain("broken.md:");
  expect(warnings[0]?.message).toMatch(/not valid YAML.*skipped/);
});

test("OPENCODE_RULEBOOK_DEBUG=1 turns the discovery log on", async () => {
  process.env.OPENCODE_RULEBOOK_DEBUG = "1";
  await startPlugin(project);
  await settle();
  expect(server.logs.map((log) => log.message)).toEqual(
    expect.arrayContaining(["Discovered global rule: style.md", "Discovered project rule: testing.md"]),
  );
});

test("an invalid option is reported and the plugin still delivers", async () => {
  const hooks = await startPlugin(project, { debug: "yes" });
  await settle();
  expect(
    server.logs.some((log) => log.level === "warn" && log.message.includes('option "debug" should be true or false')),
  ).toBe(true);
  await hooks.event?.(sessionCreated("ses_o") as never);
  expect(server.prompts).toHaveLength(1);
});

test("chat.message recognises the plugin's own rules prompt and does not wait on it", async () => {
  const hooks = await startPlugin(project);
  const started = Date.now();
  const ownPart = {
    id: "prt_1",
    sessionID: "ses_1",
    messageID: "msg_1",
    type: "text",
    text: "x",
    synthetic: true,
    metadata: { [MARKER_KEY]: { kind: "rules", rules: [], trigger: "session.created" } },
  };
  // A delivery that never finishes: were the hook to wait on it, this would take the full wait.
  server.answers.push("network-error");
  const delivery = hooks.event?.(sessionCreated("ses_1") as never);
  await hooks["chat.message"]?.(
    { sessionID: "ses_1" },
    {
      message: {
        id: "msg_1",
        sessionID: "ses_1",
        role: "user",
        time: { created: 1 },
        agent: "build",
        model: { providerID: "p", modelID: "m" },
      },
      parts: [ownPart as never],
    },
  );
  expect(Date.now() - started).toBeLessThan(500);
  await delivery;
});

const firstMessage = (sessionID: string) => ({
  message: {
    id: "msg_u",
    sessionID,
    role: "user" as const,
    time: { created: 5 },
    agent: "plan",
    model: { providerID: "p", modelID: "m" },
  },
  parts: [
    { id: "prt_000000000001AAAAAAAAAAAAAA", sessionID, messageID: "msg_u", type: "text", text: "hello" },
  ] as never[],
});

test("a first message sent right after the session is created carries the rules itself; no silent prompt races it", async () => {
  const hooks = await startPlugin(project);
  const delivery = hooks.event?.(sessionCreated("ses_1") as never);
  const output = firstMessage("ses_1");
  await hooks["chat.message"]?.({ sessionID: "ses_1" }, output);
  await delivery;
  expect(server.prompts).toHaveLength(0);
  const parts = output.parts as Array<{ text: string; synthetic?: boolean; metadata?: Record<string, unknown> }>;
  expect(parts).toHaveLength(2);
  expect(parts[0]).toMatchObject({
    synthetic: true,
    metadata: { [MARKER_KEY]: { kind: "rules", rules: ["style", "testing"] } },
  });
  expect(parts[1]?.text).toBe("hello");
});

test("a first message arriving while the silent prompt is in flight waits for it and sorts after the rules", async () => {
  server.answers.push({ status: 200, delayMs: 150 });
  const hooks = await startPlugin(project);
  const delivery = hooks.event?.(sessionCreated("ses_1") as never);
  // Past the grace period: the silent prompt is on its way.
  await new Promise((resolve) => setTimeout(resolve, CREATION_GRACE_MS + 50));
  const output = firstMessage("ses_1");
  await hooks["chat.message"]?.({ sessionID: "ses_1" }, output);
  await delivery;
  expect(server.prompts).toHaveLength(1);
  expect(output.parts).toHaveLength(1);
  expect(output.message.time.created).toBeGreaterThan(1_700_000_000_000);
});
