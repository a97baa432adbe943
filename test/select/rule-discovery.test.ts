/**
 * Every scenario of the rule-discovery specification
 * (shared/seeds/003_1c962b05c4e1e225.txt), named after it, run against the
 * real plugin entry with a real SDK client and msw playing OpenCode.
 */
import type { Hooks } from "@opencode-ai/plugin";
import { beforeEach, describe, expect, test } from "vitest";
import { parseRule } from "../../src/rule/parse.js";
import { activeRulesAmong } from "../../src/select/active.js";
import { parseRulesMessage } from "../support/rules-message.js";
import {
  sessionCompacted,
  sessionCreated,
  settle,
  startPlugin,
  type FakeOpencode,
  type TempProject,
  useFakeOpencode,
} from "../support/fake-opencode.js";

const COMPONENT_RULE = `---
globs:
  - "src/components/**/*.ts"
---

This is a rule for TypeScript components.
`;

const fake = useFakeOpencode();
let server: FakeOpencode;
let project: TempProject;

beforeEach(() => {
  ({ server, project } = fake);
});

const deliveredRuleNames = (index = 0) =>
  parseRulesMessage(server.prompts[index]?.body.parts[0]?.text ?? "").map((rule) => rule.name);
const discoveryLines = () =>
  server.logs.map((log) => log.message).filter((message) => message.startsWith("Discovered "));

async function created(hooks: Hooks, id: string) {
  await hooks.event?.(sessionCreated(id) as never);
}

describe("Requirement: Rule File Formats", () => {
  test("Scenario: Loading a standard markdown rule", async () => {
    await project.writeRule("project", "my-rule.md", "Use tabs for indentation.\n");
    const hooks = await startPlugin(project);
    await created(hooks, "ses_1");
    expect(server.prompts).toHaveLength(1);
    expect(deliveredRuleNames()).toEqual(["my-rule"]);
    expect(server.prompts[0]?.body.parts[0]?.text).toContain("Use tabs for indentation.");
  });

  test("Scenario: Loading a markdown with metadata rule", async () => {
    const path = await project.writeRule("project", "my-rule.mdc", COMPONENT_RULE);
    const { rule, warnings } = parseRule(
      { name: "my-rule", scope: "project", source: "native", path, displayPath: ".opencode/rules/my-rule.mdc" },
      new TextEncoder().encode(COMPONENT_RULE),
    );
    expect(warnings).toEqual([]);
    const active = activeRulesAmong([rule!], { files: ["src/components/button.ts"] });
    expect(active.map((entry) => entry.rule.name)).toEqual(["my-rule"]);
    expect(active[0]?.rule.content).toBe("This is a rule for TypeScript components.");
  });

  test("Scenario: Loading a markdown with metadata rule that does not apply", async () => {
    const path = await project.writeRule("project", "my-rule.mdc", COMPONENT_RULE);
    const { rule } = parseRule(
      { name: "my-rule", scope: "project", source: "native", path, displayPath: ".opencode/rules/my-rule.mdc" },
      new TextEncoder().encode(COMPONENT_RULE),
    );
    expect(activeRulesAmong([rule!], { files: ["src/utils/helpers.js"] })).toEqual([]);
    // And a new session with no file in its context does not get it either.
    await project.writeRule("project", "another-rule.mdc", "This rule should always apply.\n");
    const hooks = await startPlugin(project);
    await created(hooks, "ses_1");
    expect(deliveredRuleNames()).toEqual(["another-rule"]);
  });

  test("Scenario: Loading a rule with no metadata", async () => {
    await project.writeRule("project", "another-rule.mdc", "This rule should always apply.\n");
    const hooks = await startPlugin(project);
    await created(hooks, "ses_1");
    expect(deliveredRuleNames()).toEqual(["another-rule"]);
    expect(server.prompts[0]?.body.parts[0]?.text).toContain("This rule should always apply.");
  });
});

describe("Requirement: Debug Logging for Rule Discovery", () => {
  test("Scenario: Debug logging enabled for global rules", async () => {
    await project.writeRule("global", "global-rule.md", "Global rule.\n");
    await project.writeRule("global", "another-rule.mdc", "Another rule.\n");
    await startPlugin(project, { debug: true });
    await settle();
    expect(discoveryLines()).toContain("Discovered global rule: global-rule.md");
    expect(discoveryLines()).toContain("Discovered global rule: another-rule.mdc");
    expect(server.logs.every((log) => log.service === "opencode-rulebook")).toBe(true);
  });

  test("Scenario: Debug logging enabled for project rules", async () => {
    await project.writeRule("project", "project-rule.md", "Project rule.\n");
    await startPlugin(project, { debug: true });
    await settle();
    expect(discoveryLines()).toEqual(["Discovered project rule: project-rule.md"]);
  });

  test("Scenario: Debug logging disabled", async () => {
    await project.writeRule("global", "global-rule.md", "Global rule.\n");
    await project.writeRule("project", "project-rule.md", "Project rule.\n");
    await startPlugin(project, { debug: false });
    await settle();
    expect(discoveryLines()).toEqual([]);
    expect(server.logs.filter((log) => log.level === "debug")).toEqual([]);
  });

  test("Scenario: Debug logging with no rules found", async () => {
    await startPlugin(project, { debug: true });
    await settle();
    expect(discoveryLines()).toEqual([]);
  });
});

describe("Requirement: Silent Message Rule Injection", () => {
  beforeEach(async () => {
    await project.writeRule("global", "style.md", "Write small functions.\n");
  });

  test("Scenario: Rules sent on session creation", async () => {
    const hooks = await startPlugin(project);
    await created(hooks, "ses_new");
    expect(server.prompts).toHaveLength(1);
    expect(server.prompts[0]?.sessionID).toBe("ses_new");
    expect(server.prompts[0]?.body.noReply).toBe(true);
    expect(server.prompts[0]?.body.parts[0]?.text).toContain("Write small functions.");
    // Tracked: the same session is not sent the rules again.
    await created(hooks, "ses_new");
    expect(server.prompts).toHaveLength(1);
  });

  test("Scenario: Rules not sent twice to same session", async () => {
    const hooks = await startPlugin(project);
    await created(hooks, "ses_a");
    await created(hooks, "ses_a");
    await created(hooks, "ses_a");
    expect(server.prompts.map((prompt) => prompt.sessionID)).toEqual(["ses_a"]);
  });

  test("Scenario: Rules re-sent on session compaction", async () => {
    const hooks = await startPlugin(project);
    await created(hooks, "ses_a");
    await hooks.event?.(sessionCompacted("ses_a") as never);
    expect(server.prompts.map((prompt) => prompt.sessionID)).toEqual(["ses_a", "ses_a"]);
    expect(server.prompts[1]?.body.noReply).toBe(true);
    expect(server.prompts[1]?.body.parts[0]?.text).toContain("Write small functions.");
    // Added back to the tracking set: a later session.created does not send again.
    await created(hooks, "ses_a");
    expect(server.prompts).toHaveLength(2);
  });

  test("Scenario: Compaction for unknown session", async () => {
    const hooks = await startPlugin(project);
    await hooks.event?.(sessionCompacted("ses_unknown") as never);
    expect(server.prompts.map((prompt) => prompt.sessionID)).toEqual(["ses_unknown"]);
    await created(hooks, "ses_unknown");
    expect(server.prompts).toHaveLength(1);
  });

  test("Scenario: Silent message format", async () => {
    const hooks = await startPlugin(project);
    await created(hooks, "ses_a");
    const body = server.prompts[0]!.body;
    expect(body.noReply).toBe(true);
    expect(body.parts).toHaveLength(1);
    expect(body.parts[0]).toMatchObject({ type: "text", synthetic: true });
    expect(parseRulesMessage(body.parts[0]!.text)).toEqual([
      {
        name: "style",
        scope: "global",
        source: "native",
        displayPath: "~/.config/opencode/rules/style.md",
        content: "Write small functions.",
      },
    ]);
  });

  test("Scenario: Error handling during message send", async () => {
    server.answers.push({ status: 500 }, { status: 500 }, { status: 500 });
    const hooks = await startPlugin(project);
    await expect(created(hooks, "ses_fail")).resolves.toBeUndefined();
    await settle();
    const errors = server.logs.filter((log) => log.level === "error");
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]?.message).toContain("ses_fail");
    expect(errors[0]?.message).toContain("session.created");
    expect(errors[0]?.extra).toMatchObject({ sessionID: "ses_fail", event: "session.created" });
    // Not tracked: the next event for the session tries again, and the plugin still works.
    const before = server.prompts.length;
    await created(hooks, "ses_fail");
    expect(server.prompts.length).toBe(before + 1);
    await created(hooks, "ses_other");
    expect(server.prompts.at(-1)?.sessionID).toBe("ses_other");
  }, 15_000);
});

describe("Requirement: Event-Driven Architecture", () => {
  test("Scenario: Event hook registered", async () => {
    await project.writeRule("project", "rule.md", "A rule.\n");
    const hooks = await startPlugin(project);
    expect(typeof hooks.event).toBe("function");
    await hooks.event?.(sessionCreated("ses_e") as never);
    await hooks.event?.(sessionCompacted("ses_e") as never);
    expect(server.prompts.map((prompt) => prompt.sessionID)).toEqual(["ses_e", "ses_e"]);
  });

  test("Scenario: No rules when formattedRules is empty", async () => {
    const hooks = await startPlugin(project);
    await expect(hooks.event?.(sessionCreated("ses_empty") as never)).resolves.toBeUndefined();
    await hooks.event?.(sessionCompacted("ses_empty") as never);
    expect(server.prompts).toEqual([]);
  });
});
