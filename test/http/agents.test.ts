/**
 * Rules for one agent or one model (issue 13), through the real plugin entry
 * and the real SDK client against the fake server: which rules each message
 * carries as the session's agent and model change, subagent sessions, and the
 * re-delivery after a compaction.
 */
import type { Hooks } from "@opencode-ai/plugin";
import { beforeEach, describe, expect, test } from "vitest";
import { MARKER_KEY, type RulesMarker } from "../../src/session/marker.js";
import { parseRulesMessage } from "../support/rules-message.js";
import {
  sessionCompacted,
  sessionCreated,
  startPlugin,
  type FakeOpencode,
  type TempProject,
  useFakeOpencode,
} from "../support/fake-opencode.js";
import { compactionMessage, type StoredMessage, summaryMessage, userMessage } from "../support/opencode-1-messages.js";

const fake = useFakeOpencode();
let server: FakeOpencode;
let project: TempProject;
let hooks: Hooks;
let ids = 0;
let clock = 1_800_000_000_000;
/** The next message's creation time: one second after the last. */
const tick = () => {
  clock += 1000;
  return clock;
};

const GPT5 = "openai/gpt-5";
const CLAUDE = "anthropic/claude-sonnet-4";

beforeEach(async () => {
  ({ server, project } = fake);
  await project.writeRule("project", "style.md", "Write small functions.\n");
  await project.writeRule("project", "plan-notes.md", "---\nagents: plan\n---\nPlans list their risks.\n");
  await project.writeRule("project", "build-tests.md", "---\nagents: [build]\n---\nRun the tests after each edit.\n");
  await project.writeRule(
    "project",
    "general-checklist.md",
    "---\nagents:\n  - general\n---\nReport back in five lines.\n",
  );
  await project.writeRule("project", "claude.md", "---\nmodels: anthropic/*\n---\nClaude: keep answers short.\n");
  hooks = await startPlugin(project);
});

type Part = { id: string; type: string; text?: string; synthetic?: boolean; metadata?: Record<string, unknown> };

const modelOf = (name: string) => {
  const [providerID = "", ...rest] = name.split("/");
  return { providerID, modelID: rest.join("/") };
};

/** A user's message as OpenCode runs `chat.message` for it, then stores it (with the parts the plugin added) in the history. */
async function send(sessionID: string, agent: string, text: string, model = GPT5): Promise<Part[]> {
  const messageID = `msg_${String(++ids).padStart(4, "0")}`;
  const message = userMessage(sessionID, messageID, { created: tick(), agent, model: modelOf(model) });
  const output = {
    message,
    parts: [
      { id: `prt_${String(ids).padStart(12, "0")}ABCDEFGHIJKLMN`, sessionID, messageID, type: "text", text },
    ] as never[],
  };
  await hooks["chat.message"]?.({ sessionID }, output);
  store(sessionID, { info: { ...message }, parts: (output.parts as Part[]).map((part) => ({ ...part })) });
  return output.parts as Part[];
}

function store(sessionID: string, message: StoredMessage) {
  const messages = server.history.get(sessionID) ?? [];
  messages.push(message);
  server.history.set(sessionID, messages);
}

const rulesPart = (parts: Part[]) => parts.find((part) => part.metadata?.[MARKER_KEY] !== undefined);
const markerIn = (parts: Part[]) => rulesPart(parts)?.metadata?.[MARKER_KEY] as RulesMarker | undefined;
const blocks = (text: string | undefined) => parseRulesMessage(text ?? "").map((rule) => rule.name);
const blocksIn = (parts: Part[]) => blocks(rulesPart(parts)?.text).sort();
const count = (text: string, part: string) => text.split(part).length - 1;
const silentPrompts = () => server.prompts.filter((prompt) => prompt.body.noReply === true);

/** A new root session (no agent yet, as OpenCode creates one) whose first message follows at once. */
async function newSession(
  sessionID: string,
  agent: string,
  text: string,
  model = GPT5,
  extra: Record<string, unknown> = {},
): Promise<Part[]> {
  const created = hooks.event?.(sessionCreated(sessionID, extra) as never);
  const parts = await send(sessionID, agent, text, model);
  await created;
  return parts;
}

describe("switching agents within a session", () => {
  test("a session whose first message is for plan gets the plan rule in that message, not the build rule", async () => {
    const parts = await newSession("ses_1", "plan", "draft a plan");
    expect(blocksIn(parts)).toEqual(["plan-notes", "style"]);
    const part = rulesPart(parts)!;
    expect(part).toMatchObject({ type: "text", synthetic: true });
    expect(part.text).toContain("Plans list their risks.");
    expect(part.text).not.toContain("Run the tests after each edit.");
    expect(part.text).toContain('for="agent plan"');
    // The user's words come last, and nothing else was sent.
    expect(parts.at(-1)?.text).toBe("draft a plan");
    expect(server.prompts).toEqual([]);
  });

  test("the next message, for build, carries the build rule and the pause notice; no silent prompt is sent for the switch", async () => {
    await newSession("ses_1", "plan", "draft a plan");
    const parts = await send("ses_1", "build", "now implement it");
    expect(blocksIn(parts)).toEqual(["build-tests"]);
    const text = rulesPart(parts)?.text ?? "";
    const sentence =
      "Not in effect while you work as agent build, though given to you earlier in this conversation: plan-notes (agent plan). Set them aside until a message says they apply again.";
    expect(count(text, sentence)).toBe(1);
    expect(text.split("\n")).toContain(sentence);
    expect(text).not.toContain("Plans list their risks.");
    expect(markerIn(parts)).toMatchObject({ kind: "rules", rules: ["build-tests"], paused: ["plan-notes"] });
    expect(parts.at(-1)?.text).toBe("now implement it");
    expect(parts).toHaveLength(2);
    expect(server.prompts).toEqual([]);
    expect(silentPrompts()).toEqual([]);
  });

  test("switching back to plan: the plan rule is in effect again, its block not given twice; staying on plan adds nothing", async () => {
    await newSession("ses_1", "plan", "draft a plan");
    await send("ses_1", "build", "now implement it");
    const parts = await send("ses_1", "plan", "revise the plan");
    const text = rulesPart(parts)?.text ?? "";
    expect(
      count(
        text,
        "In effect again now that you work as agent plan, as given to you earlier in this conversation: plan-notes (agent plan).",
      ),
    ).toBe(1);
    expect(text).toContain(
      "Not in effect while you work as agent plan, though given to you earlier in this conversation: build-tests (agent build).",
    );
    expect(blocksIn(parts)).toEqual([]);
    expect(text).not.toContain('<rule name="plan-notes"');
    expect(markerIn(parts)).toMatchObject({ rules: [], resumed: ["plan-notes"], paused: ["build-tests"] });
    const quiet = await send("ses_1", "plan", "go on");
    expect(rulesPart(quiet)).toBeUndefined();
    // Across the whole session each rule's block went once.
    const all = [...(server.history.get("ses_1") ?? [])]
      .flatMap((message) => message.parts.map((part) => String(part.text ?? "")))
      .join("\n");
    for (const name of ["style", "plan-notes", "build-tests"]) expect(count(all, `<rule name="${name}" `)).toBe(1);
    expect(server.prompts).toEqual([]);
  });

  test("a session that only ever works as build never sees the plan rule", async () => {
    const first = await newSession("ses_b", "build", "fix the bug");
    expect(blocksIn(first)).toEqual(["build-tests", "style"]);
    const later = [await send("ses_b", "build", "and the next one"), await send("ses_b", "build", "ship it")];
    const all = [first, ...later]
      .flat()
      .map((part) => part.text ?? "")
      .join("\n");
    expect(all).not.toContain("Plans list their risks.");
    expect(all).not.toContain("plan-notes");
    expect(later.every((parts) => rulesPart(parts) === undefined)).toBe(true);
  });
});

describe("subagent sessions", () => {
  test("a general subagent gets the general rule in its first message; the parent, working as build, never does", async () => {
    const parentFirst = await newSession("ses_parent", "build", "review the module with a subagent");
    const childFirst = await newSession("ses_child", "general", "review src/app.ts", GPT5, {
      parentID: "ses_parent",
      agent: "general",
    });
    expect(blocksIn(childFirst)).toEqual(["general-checklist", "style"]);
    expect(rulesPart(childFirst)?.text).toContain("Report back in five lines.");
    const parentLater = await send("ses_parent", "build", "thanks, go on");
    for (const parts of [parentFirst, parentLater]) {
      const text = parts.map((part) => part.text ?? "").join("\n");
      expect(text).not.toContain("general-checklist");
      expect(text).not.toContain("Report back in five lines.");
    }
    expect(server.prompts).toEqual([]);
  });

  test("a subagent session created with its agent and no message in time gets a silent prompt as that agent, holding its rule", async () => {
    await hooks.event?.(sessionCreated("ses_child", { parentID: "ses_parent", agent: "general" }) as never);
    expect(silentPrompts()).toHaveLength(1);
    const prompt = silentPrompts()[0]!;
    expect(prompt.sessionID).toBe("ses_child");
    expect(prompt.body.agent).toBe("general");
    expect(blocks(prompt.body.parts[0]?.text).sort()).toEqual(["general-checklist", "style"]);
    expect(prompt.body.parts[0]?.text).not.toContain("Run the tests after each edit.");
  });
});

/**
 * A compaction as OpenCode 1.18 runs it in a session working as build: the compaction's message, the compacting hook,
 * its summary, the autocontinue hook (the `session.compacted` event is the caller's).
 */
async function compactedInBuild(sessionID: string) {
  store(sessionID, compactionMessage("msg_c", tick(), { agent: "build", model: modelOf(GPT5) }));
  await hooks["experimental.session.compacting"]?.({ sessionID }, { context: [] });
  store(sessionID, summaryMessage("msg_s", "msg_c", tick()));
  await hooks["experimental.compaction.autocontinue"]?.(
    { sessionID, agent: "build", model: { id: "gpt-5", providerID: "openai" }, message: { id: "msg_c" } } as never,
    { enabled: true },
  );
}

describe("compaction", () => {
  test("after a compaction in build, the re-delivery holds the build rule and not the plan rule", async () => {
    await newSession("ses_c", "plan", "draft a plan");
    await send("ses_c", "build", "implement it");
    expect(server.prompts).toEqual([]);
    await compactedInBuild("ses_c");
    await hooks.event?.(sessionCompacted("ses_c") as never);

    expect(silentPrompts()).toHaveLength(1);
    const redelivery = silentPrompts()[0]!;
    expect(redelivery.body).toMatchObject({ agent: "build", model: modelOf(GPT5) });
    const text = redelivery.body.parts[0]?.text ?? "";
    expect(blocks(text).sort()).toEqual(["build-tests", "style"]);
    expect(text).not.toContain("Plans list their risks.");
    // The new window never held the plan rule: nothing to set aside.
    expect(text).not.toContain("Not in effect");
    expect(text).not.toContain("plan-notes");

    // Still build: nothing more. Back to plan in the new window: the plan rule is given whole, not "in effect again".
    expect(rulesPart(await send("ses_c", "build", "go on"))).toBeUndefined();
    const plan = await send("ses_c", "plan", "replan");
    expect(blocksIn(plan)).toEqual(["plan-notes"]);
    expect(rulesPart(plan)?.text).not.toContain("In effect again");
    expect(rulesPart(plan)?.text).toContain("build-tests (agent build)");
  });

  test("a session from before a restart, compacted in build: the re-delivery goes as build and holds the build rule, not the plan rule", async () => {
    // Its history, written by an earlier run: the plugin has seen neither its creation nor its messages.
    store("ses_old", {
      info: { id: "msg_o1", role: "user", time: { created: tick() }, agent: "plan", model: modelOf(GPT5) },
      parts: [{ type: "text", text: "plan it" }],
    });
    await compactedInBuild("ses_old");
    expect(silentPrompts()).toHaveLength(1);
    expect(silentPrompts()[0]?.body.agent).toBe("build");
    expect(blocks(silentPrompts()[0]?.body.parts[0]?.text).sort()).toEqual(["build-tests", "style"]);
  });
});

describe("a rule for one model", () => {
  test("follows the message's model: given on Claude, set aside on GPT-5, in effect again on Claude", async () => {
    const first = await newSession("ses_m", "build", "start", CLAUDE);
    expect(blocksIn(first)).toEqual(["build-tests", "claude", "style"]);
    expect(rulesPart(first)?.text).toContain('for="model anthropic/*"');

    const gpt = await send("ses_m", "build", "continue", GPT5);
    expect(blocksIn(gpt)).toEqual([]);
    expect(rulesPart(gpt)?.text).toContain(
      "Not in effect while you work as agent build on model openai/gpt-5, though given to you earlier in this conversation: claude (model anthropic/*).",
    );
    expect(markerIn(gpt)).toMatchObject({ paused: ["claude"] });

    const back = await send("ses_m", "build", "continue again", CLAUDE);
    expect(blocksIn(back)).toEqual([]);
    expect(rulesPart(back)?.text).toContain(
      "In effect again now that you work as agent build on model anthropic/claude-sonnet-4, as given to you earlier in this conversation: claude (model anthropic/*).",
    );
    expect(markerIn(back)).toMatchObject({ resumed: ["claude"] });
    expect(server.prompts).toEqual([]);
  });

  test("a session that starts on GPT-5 does not get the Claude rule until it switches to Claude, then gets it whole, once", async () => {
    const first = await newSession("ses_g", "build", "start", GPT5);
    expect(blocksIn(first)).toEqual(["build-tests", "style"]);
    const claude = await send("ses_g", "build", "switch", CLAUDE);
    expect(blocksIn(claude)).toEqual(["claude"]);
    expect(rulesPart(claude)?.text).toContain("Claude: keep answers short.");
    expect(rulesPart(await send("ses_g", "build", "more", CLAUDE))).toBeUndefined();
  });
});
