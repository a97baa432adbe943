/**
 * One table of scenarios on both hosts (issue 16): OpenCode 1 is the real
 * `opencode serve` with a fake model; OpenCode 2 is the simulated host
 * (`test/support/opencode-2-host.ts`), built to OpenCode 2's documented API.
 * Each scenario asserts what the model received at each request: the rules
 * that apply, each once, in the turn that activated them, with no extra model
 * turn, and every request the one before plus new messages.
 */
import { describe, expect, test, vi } from "vitest";
import { EVERY_HOST, expectEachExtendsTheLast, hostForTheTable, requestText } from "../support/scenario-checks.js";
import { simulatedOpenCode2, simulatedOpenCode2At } from "../support/opencode-2-driver.js";
import type { SeenRequest } from "../support/scenario-driver.js";

const MARK = {
  always: "MARK-ALWAYS-5e1",
  ts: "MARK-TS-FILES-8b2",
  keyword: "MARK-KEYWORD-MIGRATION-0c4",
  mention: "MARK-MENTION-RELEASE-7d9",
  onRequest: "MARK-ON-REQUEST-SECRETS-2a6",
  editedBefore: "MARK-EDITED-V1-4f3",
  editedAfter: "MARK-EDITED-V2-9e8",
  plan: "MARK-PLAN-ONLY-3c7",
  build: "MARK-BUILD-ONLY-6d1",
  content: "MARK-CONTENT-LEGACY-FETCH-1b5",
} as const;

const RULES: Record<string, string> = {
  "house.md": `---\nalwaysApply: true\n---\n# House\n- ${MARK.always}: be brief.\n`,
  "ts-code.md": `---\nglobs: src/**/*.ts\n---\n# TypeScript\n- ${MARK.ts}: no \`any\`.\n`,
  "migrations.md": `---\nkeywords: [migration, migrations]\n---\n# Migrations\n- ${MARK.keyword}: every migration has a down step.\n`,
  "release.md": `---\nalwaysApply: false\n---\n# Release\n- ${MARK.mention}: bump the version first.\n`,
  "secrets.md": `---\ndescription: Handling secrets and credentials\nalwaysApply: false\n---\n# Secrets\n- ${MARK.onRequest}: never print a token.\n`,
  "edited.md": `---\nalwaysApply: true\n---\n# Edited\n- ${MARK.editedBefore}\n`,
  "plan-notes.md": `---\nagents: [plan]\n---\n# Planning\n- ${MARK.plan}: list the steps before any edit.\n`,
  "build-checks.md": `---\nagents: build\n---\n# Building\n- ${MARK.build}: run the tests after each edit.\n`,
  "legacy-client.md": `---\nfileContains: legacyFetch(\n---\n# Legacy client\n- ${MARK.content}: replace legacyFetch with the new client.\n`,
};
const PAUSED = "Not in effect while you work as agent";
const RESUMED = "In effect again now that you work as agent";
const FILES = {
  "src/app.ts": "export const answer = 42;\n",
  "README.md": "# fixture\n",
  "src/net.ts": "export const get = (url: string) => legacyFetch(url);\n",
};

const count = (request: SeenRequest, mark: string) => requestText(request).split(mark).length - 1;
/** The request's text up to the user's words: what the model read before them. */
const readBefore = (request: SeenRequest, words: string) =>
  requestText(request).slice(0, requestText(request).lastIndexOf(words));

/** The request without OpenCode 1's `<system-reminder>` blocks (plan mode, agent switches), which it adds to the latest user message only. */
function withoutHostReminders(request: SeenRequest): SeenRequest {
  return {
    messages: request.messages.map((message) => ({
      ...message,
      text: message.text.replace(/\n*<system-reminder>[\s\S]*?<\/system-reminder>\n*/g, ""),
    })),
  };
}

describe.each(EVERY_HOST)("%s", (_name, driver) => {
  const host = hostForTheTable(driver, { projectRules: RULES, projectFiles: FILES });

  test("start: the first request holds the always-on rules once, before the user's words; nothing else", {
    timeout: 30_000,
  }, async () => {
    const session = await host.newSession();
    const [first, ...rest] = await host.turn(session, "Say hello.");
    expect(rest).toEqual([]);
    expect(count(first as SeenRequest, MARK.always)).toBe(1);
    expect(readBefore(first as SeenRequest, "Say hello.")).toContain(MARK.always);
    for (const mark of [MARK.ts, MARK.keyword, MARK.mention, MARK.onRequest])
      expect(count(first as SeenRequest, mark)).toBe(0);
    const second = await host.turn(session, "And goodbye.");
    expect(second).toHaveLength(1);
    expect(count(second[0] as SeenRequest, MARK.always)).toBe(1);
    expectEachExtendsTheLast([first as SeenRequest, ...second]);
  });

  test("file read: the file's rules come with the tool result that read it, once, and stay once", {
    timeout: 30_000,
  }, async () => {
    const session = await host.newSession();
    const requests = await host.turn(session, "What does the app hold?", [
      { read: host.projectPath("src/app.ts") },
      { answer: "42" },
    ]);
    expect(requests).toHaveLength(2);
    expect(count(requests[0] as SeenRequest, MARK.ts)).toBe(0);
    expect(count(requests[1] as SeenRequest, MARK.ts)).toBe(1);
    expect(requestText(requests[1] as SeenRequest).lastIndexOf(MARK.ts)).toBeGreaterThan(
      requestText(requests[1] as SeenRequest).indexOf("export const answer"),
    );
    const next = await host.turn(session, "Thanks.");
    expect(count(next[0] as SeenRequest, MARK.ts)).toBe(1);
    expectEachExtendsTheLast([...requests, ...next]);
  });

  test("file write: writing a matching file brings its rules into the next request", { timeout: 30_000 }, async () => {
    const session = await host.newSession();
    const requests = await host.turn(session, "Create a helper.", [
      { write: host.projectPath("src/helper.ts"), content: "export const helper = 1;\n" },
      { answer: "done" },
    ]);
    expect(requests).toHaveLength(2);
    expect(count(requests[0] as SeenRequest, MARK.ts)).toBe(0);
    expect(count(requests[1] as SeenRequest, MARK.ts)).toBe(1);
  });

  test("file content: a rule with fileContains comes with the read of a file holding the pattern, not with one that does not", {
    timeout: 30_000,
  }, async () => {
    const session = await host.newSession();
    const clean = await host.turn(session, "What does the app hold?", [
      { read: host.projectPath("src/app.ts") },
      { answer: "42" },
    ]);
    expect(count(clean[1] as SeenRequest, MARK.content)).toBe(0);
    const requests = await host.turn(session, "And the network code?", [
      { read: host.projectPath("src/net.ts") },
      { answer: "a getter" },
    ]);
    expect(requests).toHaveLength(2);
    expect(count(requests[0] as SeenRequest, MARK.content)).toBe(0);
    expect(count(requests[1] as SeenRequest, MARK.content)).toBe(1);
    expect(requestText(requests[1] as SeenRequest).lastIndexOf(MARK.content)).toBeGreaterThan(
      requestText(requests[1] as SeenRequest).indexOf("legacyFetch(url)"),
    );
    expectEachExtendsTheLast([...clean, ...requests]);
  });

  test("keyword: the rule is in the turn that said it, before the user's words, and once after", {
    timeout: 30_000,
  }, async () => {
    const session = await host.newSession();
    const first = await host.turn(session, "Hello.");
    expect(count(first[0] as SeenRequest, MARK.keyword)).toBe(0);
    const words = "Write a migration for the users table.";
    const turn = await host.turn(session, words);
    expect(turn).toHaveLength(1);
    expect(count(turn[0] as SeenRequest, MARK.keyword)).toBe(1);
    expect(readBefore(turn[0] as SeenRequest, words)).toContain(MARK.keyword);
    const later = await host.turn(session, "Another migration, please.");
    expect(count(later[0] as SeenRequest, MARK.keyword)).toBe(1);
    expectEachExtendsTheLast([...first, ...turn, ...later]);
  });

  test("mention: @name brings a manual rule in that turn", { timeout: 30_000 }, async () => {
    const session = await host.newSession();
    const words = "Follow @release for this change.";
    const [request] = await host.turn(session, words);
    expect(count(request as SeenRequest, MARK.mention)).toBe(1);
    expect(readBefore(request as SeenRequest, words)).toContain(MARK.mention);
  });

  test("on-request: the model reads a rule with the rule tool; its text is the tool's answer", {
    timeout: 30_000,
  }, async () => {
    const session = await host.newSession();
    const [first, second] = await host.turn(session, "Store the API key.", [{ rule: "secrets" }, { answer: "stored" }]);
    expect(requestText(first as SeenRequest)).toContain("secrets");
    expect(count(first as SeenRequest, MARK.onRequest)).toBe(0);
    expect(count(second as SeenRequest, MARK.onRequest)).toBe(1);
  });

  test("two sessions: a rule one session activated never reaches the other", { timeout: 30_000 }, async () => {
    const a = await host.newSession();
    const b = await host.newSession();
    await host.turn(a, "Plan the migration.");
    const [inB] = await host.turn(b, "Plan the release notes.");
    expect(count(inB as SeenRequest, MARK.keyword)).toBe(0);
    expect(count(inB as SeenRequest, MARK.always)).toBe(1);
  });

  test("compaction: the first request after it holds every rule that still applies, once", {
    timeout: 60_000,
  }, async () => {
    const session = await host.newSession();
    await host.turn(session, "Write a migration.");
    const [after, ...rest] = await host.compactThenTurn(session, "Continue.");
    expect(rest).toEqual([]);
    expect(count(after as SeenRequest, MARK.always)).toBe(1);
    expect(count(after as SeenRequest, MARK.keyword)).toBe(1);
  });

  test("agents: a plan turn holds the plan rule and not the build rule; switching to build brings the build rule and a notice in that turn's one request; back to plan, no second copy", {
    timeout: 60_000,
  }, async () => {
    const session = await host.newSession();
    const plan = await host.turn(session, "Plan the feature.", [], { agent: "plan" });
    expect(plan).toHaveLength(1);
    expect(count(plan[0] as SeenRequest, MARK.plan)).toBe(1);
    expect(count(plan[0] as SeenRequest, MARK.build)).toBe(0);
    expect(readBefore(plan[0] as SeenRequest, "Plan the feature.")).toContain(MARK.plan);
    expect(requestText(plan[0] as SeenRequest)).toContain('for="agent plan"');

    const build = await host.turn(session, "Build it.", [], { agent: "build" });
    expect(build).toHaveLength(1);
    const switched = build[0] as SeenRequest;
    expect(count(switched, MARK.build)).toBe(1);
    expect(count(switched, MARK.plan)).toBe(1);
    expect(count(switched, `${PAUSED} build`)).toBe(1);
    // New in this request, before the user's words, which end it.
    const added = switched.messages.slice((plan[0] as SeenRequest).messages.length);
    expect(readBefore({ messages: added }, "Build it.")).toContain(MARK.build);
    expect(readBefore({ messages: added }, "Build it.")).toContain(`${PAUSED} build`);
    // The user's words are in the last message (OpenCode 1 adds its own reminder after them when leaving plan).
    expect(switched.messages.at(-1)?.text).toContain("Build it.");

    const more = await host.turn(session, "Go on.", [], { agent: "build" });
    expect(count(more[0] as SeenRequest, MARK.build)).toBe(1);
    expect(count(more[0] as SeenRequest, PAUSED)).toBe(1);

    const back = await host.turn(session, "Back to planning.", [], { agent: "plan" });
    expect(back).toHaveLength(1);
    expect(count(back[0] as SeenRequest, MARK.plan)).toBe(1);
    expect(count(back[0] as SeenRequest, `${RESUMED} plan`)).toBe(1);
    expect(count(back[0] as SeenRequest, `${PAUSED} plan`)).toBe(1);
    // OpenCode 1 puts a plan-mode reminder into the last user message of each plan request, and only the last: the host's own edit, left out.
    expectEachExtendsTheLast([...plan, ...build, ...more, ...back].map(withoutHostReminders));
  });

  test("agents: a build session never sees the plan rule; its compaction re-delivers the build rule only", {
    timeout: 60_000,
  }, async () => {
    const session = await host.newSession();
    const first = await host.turn(session, "Build the feature.");
    expect(count(first[0] as SeenRequest, MARK.build)).toBe(1);
    const [after] = await host.compactThenTurn(session, "Continue.");
    expect(count(after as SeenRequest, MARK.build)).toBe(1);
    expect(count(after as SeenRequest, MARK.always)).toBe(1);
    for (const request of [...first, after as SeenRequest]) {
      expect(count(request, MARK.plan)).toBe(0);
      expect(requestText(request)).not.toContain("plan-notes");
    }
  });

  test("hot reload: an edited rule reaches the next turn as its new version, once", { timeout: 30_000 }, async () => {
    const session = await host.newSession();
    const [first] = await host.turn(session, "Hello.");
    expect(count(first as SeenRequest, MARK.editedBefore)).toBe(1);
    await host.writeRule("edited.md", `---\nalwaysApply: true\n---\n# Edited\n- ${MARK.editedAfter}\n`);
    const [next] = await host.turn(session, "Again.");
    expect(count(next as SeenRequest, MARK.editedAfter)).toBe(1);
    expect(readBefore(next as SeenRequest, "Again.")).toContain(MARK.editedAfter);
  });
});

describe.each(EVERY_HOST)("%s, with a client that fails", (_name, driver) => {
  const host = hostForTheTable(driver, {
    projectRules: { "house.md": RULES["house.md"] as string, "ts-code.md": RULES["ts-code.md"] as string },
    projectFiles: FILES,
    failingClient: true,
  });

  test("every call the plugin makes fails: the session works, and its rules still reach the model", {
    timeout: 30_000,
  }, async () => {
    const session = await host.newSession();
    const requests = await host.turn(session, "Read the app.", [
      { read: host.projectPath("src/app.ts") },
      { answer: "read" },
    ]);
    expect(requests).toHaveLength(2);
    expect(count(requests[0] as SeenRequest, MARK.always)).toBe(1);
    expect(count(requests[1] as SeenRequest, MARK.ts)).toBe(1);
    expect(requestText(requests[1] as SeenRequest)).toContain("export const answer");
  });
});

describe("OpenCode 2 whose tool draft takes a name first (efeff6374): the rule tool's fallback", () => {
  const host = hostForTheTable(() => simulatedOpenCode2At("name-first-tools"), {
    projectRules: RULES,
    projectFiles: FILES,
  });

  test("on-request: the rule is given whole in the first request, with when it applies, once; nothing names a tool the model lacks", {
    timeout: 30_000,
  }, async () => {
    const session = await host.newSession();
    const [first] = await host.turn(session, "Store the API key.");
    expect(count(first as SeenRequest, MARK.onRequest)).toBe(1);
    expect(readBefore(first as SeenRequest, "Store the API key.")).toContain(
      "- secrets: Handling secrets and credentials",
    );
    expect(requestText(first as SeenRequest)).not.toContain("`rule` tool");
    const [next] = await host.turn(session, "Thanks.");
    expect(count(next as SeenRequest, MARK.onRequest)).toBe(1);
    expectEachExtendsTheLast([first as SeenRequest, next as SeenRequest]);
  });
});

describe("OpenCode 2 without session hooks (2026-07-10 to 07-15): the plugin says what it lacks", () => {
  const host = hostForTheTable(() => simulatedOpenCode2At("no-session-hooks"), {
    projectRules: RULES,
    projectFiles: FILES,
  });

  test("its log names what it needs and what the host offered; the session works, with no rule", {
    timeout: 30_000,
  }, async () => {
    const session = await host.newSession();
    const [first] = await host.turn(session, "Say hello.");
    expect(count(first as SeenRequest, MARK.always)).toBe(0);
    await vi.waitFor(() =>
      expect(host.pluginLog()).toContain(
        "cannot work on this OpenCode: it needs the session hooks of OpenCode 2's plugin API (ctx.session.hook",
      ),
    );
    expect(host.pluginLog()).toContain("(its session domain has no hook)");
  });
});

describe("OpenCode 2 (simulated host): the Rules panel its terminal UI draws", () => {
  const host = hostForTheTable(simulatedOpenCode2, { projectRules: RULES, projectFiles: FILES });

  /** The panel without what the rules cost (`· ≈ 40 tokens`, checked once below): these tests follow names and reasons. */
  const panel = (sessionID: string) =>
    host.panel(sessionID).map((line) => line.replace(/ · ≈ \d+ tokens?(?: for \d+)?(?=\)$|$)/, ""));
  /** The panel once it shows what the server says (its answers and change events are asynchronous). */
  const panelShowing = async (sessionID: string, expected: (lines: string[]) => void) => {
    await vi.waitFor(() => expected(panel(sessionID)), { timeout: 5000, interval: 20 });
    return panel(sessionID);
  };

  test("after always, file, keyword and agent switches: each rule in context with why, the rule set aside for another agent, and on request", {
    timeout: 30_000,
  }, async () => {
    const session = await host.newSession();
    expect(host.panel(session)).toEqual([]);

    await host.turn(session, "Say hello.");
    const first = await panelShowing(session, (lines) => expect(lines).toContain("• house"));
    expect(first.slice(0, 2)).toEqual(["Rules", "In context (3)"]);
    // What each rule costs, after its name, and their total, from the marks the server plugin stored.
    const costed = host.panel(session).filter((line) => /^(• |In context)/.test(line));
    expect(costed).toHaveLength(4);
    for (const line of costed) expect(line).toMatch(/^(In context \(3|• [\w-]+) · ≈ \d+ tokens\)?$/);
    expect(first).toEqual(
      expect.arrayContaining([
        "• house",
        "  always",
        "• edited",
        "• build-checks",
        "  always · agent build",
        "On request (1)",
        "  secrets",
      ]),
    );
    expect(first).not.toContain("• plan-notes");

    await host.turn(session, "What does the app hold?", [{ read: host.projectPath("src/app.ts") }, { answer: "42" }]);
    await panelShowing(session, (lines) =>
      expect(lines).toEqual(expect.arrayContaining(["• ts-code", "  file src/app.ts matched src/**/*.ts"])),
    );

    await host.turn(session, "Write a migration for the users table.");
    await panelShowing(session, (lines) =>
      expect(lines).toEqual(expect.arrayContaining(["• migrations", '  keyword "migration"'])),
    );

    await host.turn(session, "Plan the next step.", [], { agent: "plan" });
    const planning = await panelShowing(session, (lines) => expect(lines).toContain("Set aside for now (1)"));
    expect(planning).toEqual(
      expect.arrayContaining(["• plan-notes", "  always · agent plan", "Set aside for now (1)", "• build-checks"]),
    );
    expect(planning.indexOf("• build-checks")).toBeGreaterThan(planning.indexOf("Set aside for now (1)"));

    await host.turn(session, "Read the secrets rule.", [{ rule: "secrets" }, { answer: "read" }], { agent: "plan" });
    const read = await panelShowing(session, (lines) => expect(lines).toContain("  read on request"));
    expect(read).not.toContain("On request (1)");
  });

  test("a session the plugin gave nothing shows no block; sessions are kept apart", { timeout: 30_000 }, async () => {
    const a = await host.newSession();
    const b = await host.newSession();
    await host.turn(a, "Write a migration.");
    await panelShowing(a, (lines) => expect(lines).toContain("• migrations"));
    await host.turn(b, "Hello.");
    const inB = await panelShowing(b, (lines) => expect(lines).toContain("• house"));
    expect(inB).not.toContain("• migrations");
    expect(host.panel("ses_unknown")).toEqual([]);
  });

  test("after a compaction the panel shows the new window: every rule that still applies, given again, each once", {
    timeout: 30_000,
  }, async () => {
    const session = await host.newSession();
    await host.turn(session, "What does the app hold?", [{ read: host.projectPath("src/app.ts") }, { answer: "42" }]);
    await panelShowing(session, (lines) => expect(lines).toContain("• ts-code"));
    await host.compactThenTurn(session, "Continue.");
    const after = await panelShowing(session, (lines) =>
      expect(lines.filter((line) => line === "• house")).toHaveLength(1),
    );
    // The compaction re-delivery gives every rule still active once, in one message.
    expect(after.filter((line) => line === "• ts-code")).toHaveLength(1);
  });
});
