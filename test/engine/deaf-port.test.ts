/**
 * Issue 30: the engine over a port whose calls ignore their abort signal.
 * Measured before: with the history read never settling, the first message
 * of a session the plugin had not seen created was still pending after 20 s.
 * Every call must end by its bound, and the rule still holds: nothing lost,
 * nothing delivered twice. The bounds are configured small; what is asserted
 * is that each call settled (a cap far above them names one that did not)
 * and what it answered.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { engineDepsOver } from "../support/opencode-1-engine.js";
import type { RulesPrompt, SessionPort } from "../../src/engine/contract.js";
import { type RunningRulebook, startRulebook } from "../../src/engine/rulebook.js";
import type { WindowView } from "../../src/session/session.js";
import { answerLater, deaf, settled } from "../support/deaf-host.js";
import { type TempProject, tempProject } from "../support/fake-opencode.js";

type Behaviour = "answers" | "deaf" | "stores-then-deaf" | "stores-then-answers-late";

/** A port storing what it is sent as the window it reads back; each call does what the test set, ignoring its signal. */
function deafPort() {
  const windows = new Map<string, Array<{ marker: RulesPrompt["marker"]; created: number }>>();
  const port = {
    sent: [] as RulesPrompt[],
    /** The answer a `stores-then-answers-late` prompt gives when the test says so. */
    late: answerLater<{ created: number }>(),
    sends: [] as Behaviour[],
    reads: [] as Behaviour[],
    async sendRules(prompt: RulesPrompt): Promise<{ created: number }> {
      port.sent.push(prompt);
      const how: Behaviour = port.sends.shift() ?? "answers";
      if (how === "deaf") return deaf<{ created: number }>();
      const created = 1_000 + port.sent.length;
      windows.set(prompt.sessionID, [...(windows.get(prompt.sessionID) ?? []), { marker: prompt.marker, created }]);
      if (how === "stores-then-answers-late") return port.late.promise;
      return how === "answers" ? { created } : deaf<{ created: number }>();
    },
    async readWindow(sessionID: string): Promise<WindowView> {
      if ((port.reads.shift() ?? "answers") === "deaf") return deaf();
      return { rules: windows.get(sessionID) ?? [], choice: {}, movedOn: false };
    },
    /** The rules messages the session's window holds, by the rules they carry. */
    copies: (sessionID: string) => (windows.get(sessionID) ?? []).map(({ marker }) => marker.rules.join(",")),
  } satisfies SessionPort & Record<string, unknown>;
  return port;
}

let project: TempProject;
let port: ReturnType<typeof deafPort>;
let rulebook: RunningRulebook;
const logged: string[] = [];

async function start(limits: { historyTimeoutMs?: number; promptTimeoutMs?: number } = {}) {
  rulebook = await startRulebook({
    ...engineDepsOver(project, logged),
    port,
    promptTimeoutMs: limits.promptTimeoutMs ?? 50,
    firstMessageWaitMs: 50,
    limits: { historyTimeoutMs: limits.historyTimeoutMs ?? 50, compactionWaitMs: 100 },
  });
}

beforeEach(async () => {
  project = await tempProject();
  port = deafPort();
  logged.length = 0;
  await project.writeRule("project", "style.md", "Write small functions.\n");
});
afterEach(async () => {
  rulebook.dispose();
  await project.cleanup();
});

const turn = (sessionID: string, text: string) =>
  rulebook.userTurn({ sessionID, texts: [text], files: [], created: 5_000 });

describe("a port that ignores its abort signal", () => {
  test("the history read never answers: the first message of a session never seen created still goes, carrying the rules", async () => {
    await start();
    port.reads.push("deaf");
    const answer = await settled("the first message", turn("ses_unseen", "hello"));
    expect(answer.rules?.marker).toMatchObject({ rules: ["style"] });
    expect(
      logged.some((line) =>
        line.startsWith("warn: Could not read the history of session ses_unseen (no answer in 50 ms)"),
      ),
    ).toBe(true);
  });

  test("a rules prompt stored but never answered: the retry finds it in the window, and nothing is sent twice", async () => {
    await start();
    port.sends.push("stores-then-deaf");
    await settled("the new session's delivery", rulebook.sessionSeen({ id: "ses_a", hasHistory: false }));
    expect(port.sent).toHaveLength(1);
    expect(port.copies("ses_a")).toEqual(["style"]);
    expect(
      logged.some((line) => line.startsWith("error: Rules delivery to session ses_a on new-session failed (try 1)")),
    ).toBe(true);
    // The session holds its rules: the user's message carries none again.
    expect(await settled("the first message", turn("ses_a", "hello"))).toEqual({});
    expect(rulebook.report("ses_a")?.delivered).toEqual(["style"]);
  });

  test("a rules prompt answered after its deadline: the answer is dropped and logged, and the session holds one copy", async () => {
    await start();
    port.sends.push("stores-then-answers-late");
    await settled("the new session's delivery", rulebook.sessionSeen({ id: "ses_late", hasHistory: false }));
    port.late.answer({ created: 1_001 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(port.sent).toHaveLength(1);
    expect(port.copies("ses_late")).toEqual(["style"]);
    expect(
      logged.some((line) =>
        /^info: The host's answer to the rules prompt for session ses_late came \d+ ms after it was given up; the answer was dropped$/.test(
          line,
        ),
      ),
    ).toBe(true);
  });

  test("a rules prompt never answered nor stored: one more is sent after the window is read, one copy in all", async () => {
    await start();
    port.sends.push("deaf");
    await settled("the new session's delivery", rulebook.sessionSeen({ id: "ses_b", hasHistory: false }));
    expect(port.sent).toHaveLength(2);
    expect(port.copies("ses_b")).toEqual(["style"]);
  });

  test("prompt and history both deaf: no second prompt sent blind, and the first message still carries the rules", async () => {
    await start();
    port.sends.push("deaf");
    port.reads.push("deaf", "deaf");
    await settled("the new session's delivery", rulebook.sessionSeen({ id: "ses_c", hasHistory: false }));
    // The retry could not tell whether the first was stored: it sends nothing rather than perhaps a second copy.
    expect(port.sent).toHaveLength(1);
    const answer = await settled("the first message", turn("ses_c", "hello"));
    expect(answer.rules?.marker).toMatchObject({ rules: ["style"] });
  });

  test("the plugin stopping ends a call waiting on a deaf host at once, whatever its bound", async () => {
    await start({ historyTimeoutMs: 600_000, promptTimeoutMs: 600_000 });
    port.reads.push("deaf");
    const waiting = turn("ses_d", "hello");
    await new Promise((resolve) => setTimeout(resolve, 20));
    rulebook.dispose();
    await expect(settled("the message waiting on the history", waiting, 2_000)).resolves.toBeDefined();
  });
});
