/**
 * Issue 30 on OpenCode 1: a client whose calls ignore their abort signal (a
 * custom fetch, a wrapper, a test double) holds no hook past its bound. For
 * each hook that awaits the client (`session.prompt`, `session.messages`)
 * and for the log (`app.log`): the client never answers, the hook settles,
 * and what it did is what a user would want (the rules still reach the model,
 * once). The bounds are configured small; a cap far above them names a hook
 * that hung.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { openCodeLogSink } from "../../src/hosts/opencode-1/log-sink.js";
import type { OpencodeClient } from "../../src/hosts/opencode-1/session-port.js";
import { createLogger, SINK_WAIT_MS } from "../../src/log.js";
import { deaf, hasSettled, settled } from "../support/deaf-host.js";
import { sessionCompacted, sessionCreated, type TempProject, tempProject } from "../support/fake-opencode.js";
import { engineDepsOver, startEngineWithClient, type TestEngine } from "../support/opencode-1-engine.js";

type Behaviour = "answers" | "deaf" | "stores-then-deaf";
type Part = { type: string; text?: string; metadata?: Record<string, unknown> };
type Message = { info: { id: string; role: string; time: { created: number }; agent?: string }; parts: Part[] };

/** OpenCode 1's client as the plugin uses it, over an in-memory history; each call does what the test set, ignoring its signal. */
function client(engine: () => TestEngine | undefined) {
  const history = new Map<string, Message[]>();
  let clock = 1_000;
  const state = {
    prompts: [] as Behaviour[],
    reads: [] as Behaviour[],
    sent: 0,
    history,
    session: {
      async prompt({ path, body }: { path: { id: string }; body: { parts: Part[]; agent?: string } }) {
        state.sent++;
        const how = state.prompts.shift() ?? "answers";
        if (how === "deaf") return deaf();
        const info = {
          id: `msg_${++clock}`,
          sessionID: path.id,
          role: "user",
          time: { created: clock },
          agent: body.agent ?? "build",
        };
        const parts = body.parts.map((part) => ({ ...part }));
        // As OpenCode: the plugin's own prompt goes through its chat.message hook, then is stored.
        await engine()?.onChatMessage({ sessionID: path.id }, { message: info as never, parts: parts as never });
        history.set(path.id, [...(history.get(path.id) ?? []), { info, parts }]);
        return how === "answers" ? { data: { info, parts }, error: undefined, response: { status: 200 } } : deaf();
      },
      async messages({ path }: { path: { id: string } }) {
        if ((state.reads.shift() ?? "answers") === "deaf") return deaf();
        return { data: structuredClone(history.get(path.id) ?? []), error: undefined, response: { status: 200 } };
      },
    },
    /** How many rules messages of the plugin's the session's history holds. */
    copies: (sessionID: string) =>
      (history.get(sessionID) ?? []).filter((message) =>
        message.parts.some((part) => part.metadata?.["opencode-rulebook"]),
      ).length,
  };
  return state;
}

let project: TempProject;
let fake: ReturnType<typeof client>;
let rulebook: TestEngine | undefined;
const logged: string[] = [];

beforeEach(async () => {
  project = await tempProject();
  logged.length = 0;
  await project.writeRule("project", "style.md", "Write small functions.\n");
  fake = client(() => rulebook);
  rulebook = await startEngineWithClient({
    ...engineDepsOver(project, logged, false),
    client: fake as unknown as OpencodeClient,
    promptTimeoutMs: 50,
    firstMessageWaitMs: 50,
    limits: { historyTimeoutMs: 50, compactionWaitMs: 100 },
  });
});
afterEach(async () => {
  rulebook?.dispose();
  rulebook = undefined;
  await project.cleanup();
});

const userMessage = (sessionID: string, text = "hello") => {
  const message = {
    id: "msg_u",
    sessionID,
    role: "user" as const,
    time: { created: 9_000 },
    agent: "build",
    model: { providerID: "p", modelID: "m" },
  };
  const parts = [
    { id: "prt_000000000001AAAAAAAAAAAAAA", sessionID, messageID: "msg_u", type: "text", text },
  ] as never[];
  return { message, parts };
};

describe("OpenCode 1: a client deaf to its abort signal holds no hook", () => {
  test("chat.message, session.messages never answering: the first message of a session never seen created settles, carrying the rules", async () => {
    fake.reads.push("deaf");
    const output = userMessage("ses_unseen");
    await settled("chat.message", rulebook?.onChatMessage({ sessionID: "ses_unseen" }, output) as Promise<void>);
    expect(JSON.stringify(output.parts)).toContain("Write small functions.");
    expect(
      logged.some((line) =>
        line.startsWith("warn: Could not read the history of session ses_unseen (no answer in 50 ms)"),
      ),
    ).toBe(true);
  });

  test("event session.created, session.prompt stored but never answered: the event settles, and the retry finds the copy (one in all)", async () => {
    fake.prompts.push("stores-then-deaf");
    await settled("event session.created", rulebook?.onEvent(sessionCreated("ses_a").event as never) as Promise<void>);
    expect(fake.sent).toBe(1);
    expect(fake.copies("ses_a")).toBe(1);
    // The user's first message finds the rules there: nothing more.
    const output = userMessage("ses_a");
    await settled("chat.message", rulebook?.onChatMessage({ sessionID: "ses_a" }, output) as Promise<void>);
    expect(output.parts).toHaveLength(1);
  });

  test("event session.compacted, session.messages never answering: the event settles", async () => {
    await rulebook?.onEvent(sessionCreated("ses_b").event as never);
    fake.reads.push("deaf", "deaf");
    await settled(
      "event session.compacted",
      rulebook?.onEvent(sessionCompacted("ses_b").event as never) as Promise<void>,
    );
  });

  test("experimental.compaction.autocontinue, session.prompt never answering: the hook settles, and the next tool result carries the rules", async () => {
    await rulebook?.onEvent(sessionCreated("ses_c").event as never);
    await rulebook?.onCompacting({ sessionID: "ses_c" });
    fake.prompts.push("deaf", "deaf");
    fake.reads.push("answers", "deaf");
    await settled(
      "experimental.compaction.autocontinue",
      rulebook?.onCompactionAutocontinue({
        sessionID: "ses_c",
        agent: "build",
        model: { id: "m", providerID: "p" },
      }) as Promise<void>,
    );
    const output = { title: "", output: "result", metadata: {} };
    await settled(
      "tool.execute.after",
      rulebook?.onToolAfter(
        { tool: "bash", sessionID: "ses_c", callID: "c1", args: { command: "ls" } },
        output,
      ) as Promise<void>,
    );
    expect(output.output).toContain("Write small functions.");
  });

  test("the log's app.log never answering: logging goes on, and flushing the log ends by its bound", async () => {
    vi.useFakeTimers();
    try {
      let calls = 0;
      const log = () => {
        calls++;
        return deaf();
      };
      const deafClient = { app: { log } } as unknown as OpencodeClient;
      const logger = createLogger(openCodeLogSink(deafClient), false);
      logger.warn("one");
      logger.error("two");
      const flushed = logger.flush();
      await vi.advanceTimersByTimeAsync(SINK_WAIT_MS - 1);
      expect(await hasSettled(flushed)).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await hasSettled(flushed)).toBe(true);
      expect(calls).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
