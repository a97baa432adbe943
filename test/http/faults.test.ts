/**
 * Faults: a rules prompt that times out, a hundred sessions at once, events
 * for sessions the plugin never saw, rule files that change while read, and
 * dependencies that throw inside every hook. The session must go on, and no
 * rule may be lost or sent twice.
 */
import { expect, test } from "vitest";
import { nodeRuleFs, type RuleFs } from "../../src/discover/fs.js";
import { useEngineOverHttp } from "../support/engine-over-http.js";
import { type FakeOpencode, sessionCompacted, sessionCreated, type TempProject } from "../support/fake-opencode.js";
import type { TestEngine as Rulebook } from "../support/opencode-1-engine.js";
import { compactionMessage, type StoredMessage, summaryMessage, userMessage } from "../support/opencode-1-messages.js";

let server: FakeOpencode;
let project: TempProject;
const { logged, engine } = useEngineOverHttp((made) => ({ server, project } = made));

test("a rules prompt that times out but was stored is found in the history: no second copy", async () => {
  server.answers.push({ status: 200, delayMs: 600 });
  const rulebook = await engine({ promptTimeoutMs: 100 });
  await rulebook.onEvent(sessionCreated("ses_slow").event as never);
  expect(server.prompts).toHaveLength(1);
  expect(
    logged.some((line) =>
      line.startsWith("error: Rules delivery to session ses_slow on session.created failed (try 1)"),
    ),
  ).toBe(true);
  // Delivered: the next event does not send again.
  await rulebook.onEvent(sessionCreated("ses_slow").event as never);
  expect(server.prompts).toHaveLength(1);
});

test("a prompt that fails with 500 is retried with back-off, at most 3 tries per event, and the next event tries again", async () => {
  server.answers.push({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
  const rulebook = await engine();
  await rulebook.onEvent(sessionCreated("ses_f").event as never);
  expect(server.prompts).toHaveLength(3);
  expect(logged.filter((line) => line.includes("failed (try"))).toHaveLength(3);
  await rulebook.onEvent(sessionCreated("ses_f").event as never);
  expect(server.prompts).toHaveLength(5);
  expect(server.history.get("ses_f")).toHaveLength(1);
});

test("a hundred sessions created at once each get exactly one delivery", async () => {
  const rulebook = await engine();
  const ids = Array.from({ length: 100 }, (_, i) => `ses_${i}`);
  await Promise.all(
    ids.flatMap((id) => [
      rulebook.onEvent(sessionCreated(id).event as never),
      rulebook.onEvent(sessionCreated(id).event as never),
    ]),
  );
  expect(server.prompts).toHaveLength(100);
  expect(new Set(server.prompts.map((prompt) => prompt.sessionID)).size).toBe(100);
});

test("events for unknown and deleted sessions: logged, never thrown", async () => {
  server.answers.push({ status: 404 }, { status: 404 }, { status: 404 });
  const rulebook = await engine();
  await expect(rulebook.onEvent(sessionCompacted("ses_gone").event as never)).resolves.toBeUndefined();
  await expect(
    rulebook.onEvent({ type: "session.deleted", properties: { info: { id: "ses_gone" } } } as never),
  ).resolves.toBeUndefined();
  await expect(rulebook.onEvent({ type: "file.edited", properties: { file: "/x" } } as never)).resolves.toBeUndefined();
  expect(logged.some((line) => line.includes("ses_gone") && line.includes("404"))).toBe(true);
});

test("after a restart, an old session's compaction delivers once, and a prompt in it reads the rules back from history", async () => {
  const before = await engine();
  await before.onEvent(sessionCreated("ses_old").event as never);
  const after = await engine(); // a new process: no memory of ses_old
  const output = {
    message: userMessage("ses_old", "msg_u", { agent: "plan" }),
    parts: [
      {
        id: "prt_000000000001AAAAAAAAAAAAAA",
        sessionID: "ses_old",
        messageID: "msg_u",
        type: "text",
        text: "continue",
      },
    ] as never[],
  };
  await after.onChatMessage({ sessionID: "ses_old" }, output);
  expect(output.parts).toHaveLength(1);
  await after.onEvent(sessionCompacted("ses_old").event as never);
  expect(server.prompts.map((prompt) => prompt.sessionID)).toEqual(["ses_old", "ses_old"]);
  expect(server.prompts[1]?.body.agent).toBe("plan");
});

test("a rule file that changes while it is read: the rules that could be read still load", async () => {
  await project.writeRule("project", "moving.md", "Short.\n");
  const shifting: RuleFs = {
    ...nodeRuleFs,
    readFile: async (path, maxBytes) => {
      if (path.endsWith("moving.md")) {
        const error = new Error("file changed during read") as NodeJS.ErrnoException;
        error.code = "ENOENT";
        throw error;
      }
      return nodeRuleFs.readFile(path, maxBytes);
    },
  };
  const rulebook = await engine({ fs: shifting });
  await rulebook.onEvent(sessionCreated("ses_m").event as never);
  expect(server.prompts[0]?.body.parts[0]?.text).toContain("Write small functions.");
  expect(logged.some((line) => line.includes("moving.md") && line.includes("cannot be read (ENOENT)"))).toBe(true);
});

test("a dependency that throws inside every hook never reaches OpenCode", async () => {
  const throwing = new Proxy(
    {},
    {
      get: () => {
        throw new Error("client exploded");
      },
    },
  );
  const rulebook = await engine({ client: throwing as never });
  const message = userMessage("ses_t", "msg_u");
  await expect(rulebook.onEvent(sessionCreated("ses_t").event as never)).resolves.toBeUndefined();
  await expect(rulebook.onChatMessage({ sessionID: "ses_t" }, { message, parts: [] })).resolves.toBeUndefined();
  await expect(
    rulebook.onCompactionAutocontinue({ sessionID: "ses_t", agent: "build", model: { id: "m", providerID: "p" } }),
  ).resolves.toBeUndefined();
  await expect(
    rulebook.onToolBefore({ tool: "read", sessionID: "ses_t", callID: "c" }, { args: { filePath: "/x" } }),
  ).resolves.toBeUndefined();
  const output = { title: "", output: "result", metadata: {} };
  await expect(
    rulebook.onToolAfter({ tool: "read", sessionID: "ses_t", callID: "c", args: { filePath: "/x" } }, output),
  ).resolves.toBeUndefined();
  // The compaction's re-delivery could not be sent: the tool result, the next message the plugin reaches, carries the rules.
  expect(output.output).toMatch(/^result\n\n<rulebook>[\s\S]*Write small functions\./);
  // The user's first message still carries the rules, since the silent prompt could not be sent.
  const parts: never[] = [];
  await rulebook.onChatMessage({ sessionID: "ses_t2" }, { message: { ...message, sessionID: "ses_t2" }, parts });
  expect(JSON.stringify(parts)).toContain("Write small functions.");
  const brokenFs: RuleFs = {
    ...nodeRuleFs,
    readdir: async () => {
      throw new Error("disk on fire");
    },
    stat: async () => {
      throw new Error("disk on fire");
    },
  };
  await expect(engine({ fs: brokenFs })).resolves.toBeDefined();
});

/** A session's history after a compaction OpenCode finished: the compaction's message, its summary, then `after`. */
function compactedHistory(sessionID: string, after: StoredMessage[] = []) {
  server.history.set(sessionID, [
    { info: userMessage(sessionID, "msg_1", { created: 100, agent: "plan" }), parts: [{ type: "text", text: "hi" }] },
    compactionMessage("msg_2", 300, { agent: "plan" }),
    summaryMessage("msg_3", "msg_2", 400),
    ...after,
  ]);
}

const toolResult = async (rulebook: Rulebook, sessionID: string) => {
  const output = { title: "", output: "result", metadata: {} };
  await rulebook.onToolAfter({ tool: "bash", sessionID, callID: "c", args: { command: "ls" } }, output);
  return output.output;
};

test("a compaction whose summary the model has already read past (a replayed prompt): no rules message goes before it; the next tool result carries them", async () => {
  compactedHistory("ses_c", [
    {
      info: { id: "msg_4", role: "user", time: { created: 500 }, agent: "plan" },
      parts: [{ type: "text", text: "replayed prompt" }],
    },
  ]);
  const rulebook = await engine();
  await rulebook.onEvent(sessionCompacted("ses_c").event as never);
  expect(server.prompts).toHaveLength(0);
  expect(await toolResult(rulebook, "ses_c")).toContain("Write small functions.");
  // Paid once: the next result is the tool's own.
  expect(await toolResult(rulebook, "ses_c")).toBe("result");
});

test("a compaction's event that comes after the user's next message went to the model: that message carried the rules, and the event sends nothing", async () => {
  const rulebook = await engine();
  await rulebook.onEvent(sessionCreated("ses_late").event as never);
  expect(server.prompts).toHaveLength(1);
  // OpenCode calls the compacting hook (awaited) before it summarises; its event is still on its way when the user writes.
  await rulebook.onCompacting({ sessionID: "ses_late" });
  compactedHistory("ses_late");
  const parts: never[] = [];
  const message = userMessage("ses_late", "msg_5", { created: 600, agent: "plan" });
  await rulebook.onChatMessage({ sessionID: "ses_late" }, { message, parts });
  expect(JSON.stringify(parts)).toContain("Write small functions.");
  await rulebook.onEvent(sessionCompacted("ses_late").event as never);
  expect(server.prompts).toHaveLength(1);
});

test("a compaction that failed: the user's next message is still in the window that holds the rules, and carries none", async () => {
  const rulebook = await engine();
  await rulebook.onEvent(sessionCreated("ses_fail").event as never);
  await rulebook.onCompacting({ sessionID: "ses_fail" });
  server.history
    .get("ses_fail")
    ?.push(
      compactionMessage("msg_c", 1, { agent: "plan" }),
      summaryMessage("msg_s", "msg_c", 2, { error: { name: "ContextOverflowError" } }),
    );
  const parts: never[] = [];
  const message = userMessage("ses_fail", "msg_6", { created: 700, agent: "plan" });
  await rulebook.onChatMessage({ sessionID: "ses_fail" }, { message, parts });
  expect(parts).toEqual([]);
});
