/**
 * Issue 13 — rules for one agent or one model, in the real OpenCode.
 *
 * One instance, the two always-on rules of every delivery test, and five
 * scoped project rules: for `plan`, for `build`, for the task tool's `general`
 * subagent, for the fake model's provider (`fake/*`) and for another
 * (`anthropic/*`). Switching agent is what Tab does in the terminal UI: the
 * next prompt names another agent. OpenCode adds reminders of its own to the
 * latest user message of a plan request and of a build request after plan
 * (never stored); they come after the user's words, so "ends with the user's
 * words" is checked with those set aside.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { requestText, type RecordedRequest } from "./harness/fake-model.js";
import { startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import {
  EACH_ONCE,
  PLUGIN_UNDER_TEST,
  alwaysRuleFiles,
  childPrompt,
  countOf,
  delegatingResponder,
  lastMessageParts,
  ruleCounts,
  scopedRule,
  timesIn,
} from "./harness/rules.js";
import { createSession, getMessages, prompt, unwrap, userMessages, waitForIdle } from "./harness/wait.js";

const PLAN = { name: "plan-notes", mark: "MARK-AGENT-PLAN-5a1", frontMatter: "agents: [plan]" };
const BUILD = { name: "build-notes", mark: "MARK-AGENT-BUILD-8c3", frontMatter: "agents: [build]" };
const GENERAL = { name: "general-notes", mark: "MARK-AGENT-GENERAL-2f7", frontMatter: "agents: [general]" };
const FAKE_MODEL = { name: "fake-model-notes", mark: "MARK-MODEL-FAKE-e40", frontMatter: 'models: ["fake/*"]' };
const OTHER_MODEL = {
  name: "anthropic-notes",
  mark: "MARK-MODEL-ANTHROPIC-b96",
  frontMatter: 'models: ["anthropic/*"]',
};
const SCOPED = [PLAN, BUILD, GENERAL, FAKE_MODEL, OTHER_MODEL];

/** The opening tag of a scoped project rule's block, `for` included. */
const openingTag = (rule: { name: string }, only: string) =>
  `<rule name="${rule.name}" scope="project" source="native" file=".opencode/rules/${rule.name}.md" for="${only}">`;

const NOT_FOR_BUILD = "Not in effect while you work as agent build";
const NOT_FOR_PLAN = "Not in effect while you work as agent plan";
const AGAIN_FOR_PLAN = "In effect again now that you work as agent plan";

/** The user's words of turn `n` (delegatingResponder answers `ANSWER-n`). */
const userText = (n: number) => `USER-FIRST-${n}: carry on with the work.`;

/** The kinds of the last message's text parts, OpenCode's own reminders at its end set aside. */
function shapeOfLastMessage(request: RecordedRequest): string[] {
  const kinds = lastMessageParts(request).map((part) => part.kind);
  while (kinds.at(-1) === "opencode-reminder") kinds.pop();
  return kinds;
}

/** The plugin's rules message in the request's last message ("" when it has none). */
const rulesOfLastMessage = (request: RecordedRequest) =>
  lastMessageParts(request).find((part) => part.kind === "rules")?.text ?? "";

/** The user's words in the request's last message: its last part that is neither rules nor OpenCode's. */
const wordsOfLastMessage = (request: RecordedRequest) =>
  lastMessageParts(request)
    .filter((part) => part.kind === "text")
    .at(-1)?.text ?? "";

describe("rules for one agent or one model (real OpenCode)", { timeout: 60_000 }, () => {
  let oc: OpencodeInstance;

  beforeAll(async () => {
    const always = alwaysRuleFiles();
    const scoped = Object.fromEntries(
      SCOPED.map((rule) => [`${rule.name}.md`, scopedRule(rule.frontMatter, rule.name, `${rule.mark}: follow it.`)]),
    );
    oc = await startOpencode({
      pluginPath: PLUGIN_UNDER_TEST,
      globalRules: always.globalRules,
      projectRules: { ...always.projectRules, ...scoped },
    });
    oc.fakeModel.respond(delegatingResponder);
  }, 60_000);

  afterAll(async () => {
    await oc?.stop();
  });

  /** One turn of `sessionID` (as `agent`, or the session's own when undefined); returns the main requests it made. */
  async function turn(sessionID: string, n: number, agent?: string): Promise<RecordedRequest[]> {
    const before = oc.fakeModel.mainRequests(sessionID).length;
    await prompt(oc.client, sessionID, userText(n), agent ? { agent } : {});
    await waitForIdle(oc.client, sessionID);
    return oc.fakeModel.mainRequests(sessionID).slice(before);
  }

  describe("a plan session switched to build (Tab), a build turn, then back to plan", () => {
    let sessionID: string;
    const turns: RecordedRequest[][] = [];

    beforeAll(async () => {
      sessionID = (await createSession(oc.client)).id;
      turns.push(await turn(sessionID, 1, "plan"));
      turns.push(await turn(sessionID, 2, "build"));
      turns.push(await turn(sessionID, 3, "build"));
      turns.push(await turn(sessionID, 4, "plan"));
    }, 60_000);

    test("each turn is one model request: a switch costs no turn of its own", async () => {
      expect(turns.map((requests) => requests.length)).toEqual([1, 1, 1, 1]);
      const agents = userMessages(await getMessages(oc.client, sessionID)).map(
        (message) => (message.info as { agent?: string }).agent,
      );
      expect(agents).toEqual(["plan", "build", "build", "plan"]);
    });

    test("(a) the plan session's first request holds the plan rule, marked for agent plan, and not the build rule", () => {
      const [first] = turns[0]!;
      expect(timesIn(first!, PLAN)).toBe(1);
      expect(requestText(first!)).toContain(openingTag(PLAN, "agent plan"));
      expect(timesIn(first!, BUILD)).toBe(0);
      expect(ruleCounts(first!)).toEqual(EACH_ONCE);
      expect(shapeOfLastMessage(first!)).toEqual(["rules", "text"]);
      expect(rulesOfLastMessage(first!)).toContain(openingTag(PLAN, "agent plan"));
      expect(wordsOfLastMessage(first!).trimEnd().endsWith(userText(1))).toBe(true);
    });

    test("(b) the switch to build: its one request holds the build rule once, in the user's message before their words, and says the plan rule is not in effect now", () => {
      const [switched] = turns[1]!;
      expect(timesIn(switched!, BUILD)).toBe(1);
      expect(timesIn(switched!, PLAN)).toBe(1); // the plan turn's, kept in the history
      expect(ruleCounts(switched!)).toEqual(EACH_ONCE);
      expect(countOf(requestText(switched!), NOT_FOR_BUILD)).toBe(1);
      // The user's message: the rules message (the notice and the build rule), then the user's words, then only OpenCode's own reminder.
      expect(shapeOfLastMessage(switched!)).toEqual(["rules", "text"]);
      const rules = rulesOfLastMessage(switched!);
      expect(rules).toContain(openingTag(BUILD, "agent build"));
      expect(rules).toMatch(new RegExp(`${NOT_FOR_BUILD}\\b[^\\n]*: ${PLAN.name} \\(agent plan\\)\\.`));
      expect(rules).not.toContain(`<rule name="${PLAN.name}"`);
      expect(wordsOfLastMessage(switched!).trimEnd().endsWith(userText(2))).toBe(true);
    });

    test("(b) the build turn after: the build rule still once, the plan rule's block and the notice once (the history), nothing new", () => {
      const [after] = turns[2]!;
      expect(timesIn(after!, BUILD)).toBe(1);
      expect(timesIn(after!, PLAN)).toBe(1);
      expect(countOf(requestText(after!), NOT_FOR_BUILD)).toBe(1);
      expect(ruleCounts(after!)).toEqual(EACH_ONCE);
      expect(shapeOfLastMessage(after!)).toEqual(["text"]);
      expect(wordsOfLastMessage(after!).trimEnd().endsWith(userText(3))).toBe(true);
    });

    test("(b) back to plan: the plan rule is said to be in effect again, once, and never given a second time", () => {
      const [back] = turns[3]!;
      const text = requestText(back!);
      expect(countOf(text, AGAIN_FOR_PLAN)).toBe(1);
      expect(countOf(text, NOT_FOR_PLAN)).toBe(1); // the build rule, set aside in turn
      expect(timesIn(back!, PLAN)).toBe(1);
      expect(timesIn(back!, BUILD)).toBe(1);
      expect(ruleCounts(back!)).toEqual(EACH_ONCE);
      expect(shapeOfLastMessage(back!)).toEqual(["rules", "text"]);
      const rules = rulesOfLastMessage(back!);
      expect(rules).toMatch(new RegExp(`${AGAIN_FOR_PLAN}\\b[^\\n]*: ${PLAN.name} \\(agent plan\\)\\.`));
      expect(rules).not.toContain("<rule name=");
      expect(wordsOfLastMessage(back!).trimEnd().endsWith(userText(4))).toBe(true);
    });
  });

  test("(c) a build session never sees the plan rule, over two turns", async () => {
    const { id } = await createSession(oc.client);
    // The first prompt names no agent: OpenCode's default agent, build.
    const requests = [...(await turn(id, 5)), ...(await turn(id, 6, "build"))];
    expect(
      userMessages(await getMessages(oc.client, id)).map((message) => (message.info as { agent?: string }).agent),
    ).toEqual(["build", "build"]);
    expect(
      requests.map((request) => [
        timesIn(request, PLAN),
        timesIn(request, BUILD),
        countOf(requestText(request), NOT_FOR_BUILD),
      ]),
    ).toEqual([
      [0, 1, 0],
      [0, 1, 0],
    ]);
    expect(requestText(requests[0]!)).toContain(openingTag(BUILD, "agent build"));
  });

  test("(d) a general subagent started by the task tool gets its rule in its first request; the parent never does", async () => {
    const { id: parent } = await createSession(oc.client);
    await prompt(oc.client, parent, "DELEGATE-7 to a subagent");
    await waitForIdle(oc.client, parent);
    const children = unwrap(await oc.client.session.children({ path: { id: parent } }), "session.children");
    expect(children).toHaveLength(1);
    const child = children[0]!.id;
    await waitForIdle(oc.client, child);
    expect(
      userMessages(await getMessages(oc.client, child)).map((message) => (message.info as { agent?: string }).agent),
    ).toEqual(["general"]);

    const [first, ...more] = oc.fakeModel.mainRequests(child);
    expect(more).toHaveLength(0);
    expect(timesIn(first!, GENERAL)).toBe(1);
    expect(rulesOfLastMessage(first!)).toContain(openingTag(GENERAL, "agent general"));
    expect([timesIn(first!, PLAN), timesIn(first!, BUILD)]).toEqual([0, 0]);
    expect(ruleCounts(first!)).toEqual(EACH_ONCE);
    expect(wordsOfLastMessage(first!).trimEnd().endsWith(childPrompt(7))).toBe(true);

    const parentRequests = oc.fakeModel.mainRequests(parent);
    expect(parentRequests).toHaveLength(2); // the task call, then the answer after its result
    expect(parentRequests.map((request) => [timesIn(request, GENERAL), timesIn(request, BUILD)])).toEqual([
      [0, 1],
      [0, 1],
    ]);
  });

  test("(e) the rule for the session's model (fake/*) reaches every session once; the rule for anthropic/* never reaches the model", () => {
    const main = oc.fakeModel.mainRequests();
    expect(main.length).toBeGreaterThanOrEqual(9);
    expect(main.filter((request) => timesIn(request, FAKE_MODEL) !== 1).map((request) => request.seq)).toEqual([]);
    expect(requestText(main[0]!)).toContain(openingTag(FAKE_MODEL, "model fake/*"));
    // Title requests included: no request of any kind ever held it.
    expect(
      oc.fakeModel.requests.filter((request) => timesIn(request, OTHER_MODEL) !== 0).map((request) => request.seq),
    ).toEqual([]);
  });
});
