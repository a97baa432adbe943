/**
 * Hot reload inside the real OpenCode (issue 5): new, changed and deleted
 * rule files take effect without restarting it. A new session gets the
 * current text; a session that already holds a changed rule gets the new
 * version once, with a note that it replaces the old one; a deleted rule is
 * withdrawn. The watcher needs a moment after a file changes (~200 ms).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { lastUserText, requestText, type RecordedRequest } from "./harness/fake-model.js";
import { DIST_PLUGIN, startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import { alwaysRule } from "./harness/rules.js";
import { createSession, getMessages, prompt, sleep, waitFor, waitForIdle } from "./harness/wait.js";

const WATCHER_SETTLE_MS = 250;
const REPLACES = "replaces the one you were given earlier";
const ANCHOR = "MARK-ANCHOR-0b3";

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe("hot reload in the real OpenCode", { timeout: 30_000 }, () => {
  let oc: OpencodeInstance;

  beforeAll(async () => {
    oc = await startOpencode({
      pluginPath: DIST_PLUGIN,
      projectRules: {
        "anchor.md": alwaysRule("Anchor", `${ANCHOR}: always here.`),
        "between.md": alwaysRule("Between sessions", "BETWEEN-V1: tabs."),
        "within.md": alwaysRule("Within a session", "WITHIN-V1: semicolons."),
        "doomed.md": alwaysRule("Doomed", "DOOMED-MARK: old habit."),
      },
    });
  }, 30_000);

  afterAll(async () => {
    await oc?.stop();
  });

  beforeEach(() => oc.fakeModel.reset());

  const ruleFile = (name: string) => path.join(oc.projectRulesDir, name);

  async function newSession(): Promise<string> {
    const { id } = await createSession(oc.client);
    await waitFor(
      async () =>
        (await getMessages(oc.client, id)).some((m) =>
          m.parts.some((p) => p.type === "text" && p.text.includes(ANCHOR)),
        ),
      {
        message: "rules message stored",
        timeoutMs: 10_000,
      },
    );
    return id;
  }

  async function turn(sessionID: string, text: string): Promise<RecordedRequest[]> {
    const before = oc.fakeModel.mainRequests(sessionID).length;
    await prompt(oc.client, sessionID, text);
    await waitForIdle(oc.client, sessionID);
    return oc.fakeModel.mainRequests(sessionID).slice(before);
  }

  /** Text of the session's stored rules messages (the silent one first). */
  async function storedRulesText(sessionID: string): Promise<string> {
    const msgs = await getMessages(oc.client, sessionID);
    return msgs
      .flatMap((m) => m.parts)
      .filter((p) => p.type === "text" && p.synthetic)
      .map((p) => (p as { text: string }).text)
      .join("\n");
  }

  test("a rule file edited between two sessions: the second session gets the new text; a new file is picked up", async () => {
    const first = await newSession();
    const [r1] = await turn(first, "Format this file.");
    expect(requestText(r1!)).toContain("BETWEEN-V1");

    fs.writeFileSync(ruleFile("between.md"), alwaysRule("Between sessions", "BETWEEN-V2: spaces."));
    fs.writeFileSync(ruleFile("added-later.md"), alwaysRule("Added later", "ADDED-LATER-MARK: new rule."));
    await sleep(WATCHER_SETTLE_MS);

    const second = await newSession();
    const stored = await storedRulesText(second);
    expect(stored).toContain("BETWEEN-V2");
    expect(stored).not.toContain("BETWEEN-V1");
    expect(stored).toContain("ADDED-LATER-MARK");
    expect(stored).not.toContain(REPLACES); // a new session has nothing to replace

    const t = await turn(second, "Format this file again.");
    expect(t).toHaveLength(1);
    const text = requestText(t[0]!);
    expect(count(text, "BETWEEN-V2")).toBe(1);
    expect(text).not.toContain("BETWEEN-V1");
    expect(count(text, "ADDED-LATER-MARK")).toBe(1);
  });

  test("a rule file edited within a session: the next request holds the new version once, noted as replacing the old", async () => {
    const id = await newSession();
    const t1 = await turn(id, "First question.");
    expect(t1).toHaveLength(1);
    expect(count(requestText(t1[0]!), "WITHIN-V1")).toBe(1);

    fs.writeFileSync(ruleFile("within.md"), alwaysRule("Within a session", "WITHIN-V2: no semicolons."));
    await sleep(WATCHER_SETTLE_MS);

    const text = "Second question.";
    const t2 = await turn(id, text);
    expect(t2).toHaveLength(1); // no extra turn for the update
    const all = requestText(t2[0]!);
    expect(count(all, "WITHIN-V2")).toBe(1);
    expect(count(all, REPLACES)).toBe(1);
    // It travels in the user message that follows the change, before the user's words.
    const user = lastUserText(t2[0]!);
    expect(user).toContain("WITHIN-V2");
    expect(user).toMatch(/within[^\n]*replaces the one you were given earlier/);
    expect(user.indexOf("WITHIN-V2")).toBeLessThan(user.indexOf(text));
    // Unchanged rules are not sent again.
    expect(count(all, ANCHOR)).toBe(1);

    // Once: the turn after carries no further copy.
    const t3 = await turn(id, "Third question.");
    expect(t3).toHaveLength(1);
    expect(count(requestText(t3[0]!), "WITHIN-V2")).toBe(1);
    expect(count(requestText(t3[0]!), REPLACES)).toBe(1);
  });

  test("a deleted rule file is withdrawn: the session is told, new sessions do not get it", async () => {
    const id = await newSession();
    const t1 = await turn(id, "Hello.");
    expect(count(requestText(t1[0]!), "DOOMED-MARK")).toBe(1);

    fs.rmSync(ruleFile("doomed.md"));
    await sleep(WATCHER_SETTLE_MS);

    const t2 = await turn(id, "What now?");
    expect(t2).toHaveLength(1);
    expect(lastUserText(t2[0]!)).toMatch(/rule file of doomed was deleted: that rule no longer applies/);

    const fresh = await newSession();
    expect(await storedRulesText(fresh)).not.toContain("DOOMED-MARK");
    const t3 = await turn(fresh, "Hi.");
    expect(requestText(t3[0]!)).not.toContain("DOOMED-MARK");
    expect(requestText(t3[0]!)).toContain(ANCHOR);
  });
});
