/** Rules for one agent or model on the command line: `explain` and `render` with --agent and --model, `list`, and `check`'s unknown agent names. */
import { mkdir, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, test } from "vitest";
import { composeRulesMessage } from "../../src/render/compose.js";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { DEFAULT_MAX_RULE_BYTES } from "../../src/discover/discover.js";
import { loadRules } from "../../src/formats/load.js";
import { projectTree } from "../support/cli-fixtures.js";
import { type Sandbox, useSandbox } from "../support/cli.js";

/** One rule per use: plan only, build only, a custom agent's (a file rule), one model's; and one for everyone. */
const SCOPED_RULES: Record<string, string> = {
  "plan-notes.md": "---\nagents: [plan]\n---\nPlan in numbered steps.\n",
  "build-tests.md": "---\nagents: build\n---\nRun the tests after each edit.\n",
  "review.md": "---\nglobs: src/**\nagents: [reviewer]\n---\nGo through the review checklist.\n",
  "claude.md": "---\nmodels: anthropic/*\n---\nNo emojis in code.\n",
  "testing.md": "Run npm test before saying you are done.\n",
};

const current = useSandbox((box) => box.write(projectTree(SCOPED_RULES)));
let box: Sandbox;
beforeEach(() => {
  box = current();
});

type Entry = { name: string; reason: string; for?: { agent?: string; model?: string } };
type Explained = { agent: string | null; model: string | null; delivered: Entry[]; notDelivered: Entry[] };

function explainJson(args: string[]): Explained {
  const run = box.run(["explain", "--json", ...args]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Explained;
}

const names = (entries: Entry[]) => entries.map((entry) => entry.name).sort();
const reasons = (entries: Entry[]) => Object.fromEntries(entries.map((entry) => [entry.name, entry.reason]));

/** The message the plugin composes for a session working as `workingAs`, from the rules as it loads them for this sandbox. */
async function composedFor(context: Parameters<typeof composeRulesMessage>[1]): Promise<string | undefined> {
  const loaded = await loadRules({
    env: { HOME: box.home, XDG_CONFIG_HOME: box.xdg },
    home: box.home,
    directory: box.project,
    worktree: box.project,
    fs: nodeRuleFs,
    maxRuleBytes: DEFAULT_MAX_RULE_BYTES,
  });
  return composeRulesMessage(loaded.rules, context, { listOnRequest: true, maxBytes: 48 * 1024 })?.text;
}

describe("explain --agent --model", () => {
  test("without --agent or --model: the scoped rules do not apply, each says why and which flag would tell", () => {
    const { stdout, code } = box.run(["explain"]);
    expect(code).toBe(0);
    expect(stdout).toContain(
      "Files: (none)\nAgent: (not given: rules for some agents do not apply; see --agent)\nModel: (not given: rules for some models do not apply; see --model)\n",
    );
    expect(stdout).toMatch(/Delivered \(1\)\n {2}✓ testing {2}≈ \d+ tokens {2}always\n/);
    expect(stdout).toMatch(
      /^ {2}✗ plan-notes\s+for agent plan only; the session's agent is not known yet \(give --agent\)$/m,
    );
    expect(stdout).toMatch(
      /^ {2}✗ build-tests\s+for agent build only; the session's agent is not known yet \(give --agent\)$/m,
    );
    expect(stdout).toMatch(
      /^ {2}✗ review\s+for agent reviewer only; the session's agent is not known yet \(give --agent\)$/m,
    );
    expect(stdout).toMatch(
      /^ {2}✗ claude\s+for model anthropic\/\* only; the session's model is not known yet \(give --model\)$/m,
    );
  });

  test("--agent plan: the plan rule applies, said to be for agent plan; the build and reviewer rules say the session works as plan", () => {
    const { stdout, code } = box.run(["explain", "--agent", "plan"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Agent: plan\n");
    expect(stdout).toMatch(/^ {2}✓ plan-notes\s+≈ \d+ tokens\s+always; for agent plan$/m);
    expect(stdout).toMatch(/^ {2}✗ build-tests\s+for agent build only; the session works as agent plan$/m);
    expect(stdout).toMatch(/^ {2}✗ review\s+for agent reviewer only; the session works as agent plan$/m);
    expect(stdout).toMatch(/Delivered \(2\)\n/);

    const json = explainJson(["--agent", "plan"]);
    expect(json.agent).toBe("plan");
    expect(json.model).toBeNull();
    expect(names(json.delivered)).toEqual(["plan-notes", "testing"]);
    expect(json.delivered.find((entry) => entry.name === "plan-notes")?.for).toEqual({ agent: "plan" });
    expect(json.delivered.find((entry) => entry.name === "testing")).not.toHaveProperty("for");
  });

  test("--agent build --model anthropic/…: the build rule and the model's rule apply, the plan rule names both", () => {
    const { stdout, code } = box.run(["explain", "--agent", "build", "--model", "anthropic/claude-sonnet-4"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Agent: build\nModel: anthropic/claude-sonnet-4\n");
    expect(stdout).toMatch(/^ {2}✓ build-tests\s+≈ \d+ tokens\s+always; for agent build$/m);
    expect(stdout).toMatch(/^ {2}✓ claude\s+≈ \d+ tokens\s+always; for model anthropic\/\*$/m);
    expect(stdout).toMatch(/^ {2}✗ plan-notes\s+for agent plan only; the session works as agent build$/m);

    const json = explainJson(["--agent", "build", "--model", "anthropic/claude-sonnet-4"]);
    expect(json.model).toBe("anthropic/claude-sonnet-4");
    expect(names(json.delivered)).toEqual(["build-tests", "claude", "testing"]);
    expect(json.delivered.find((entry) => entry.name === "claude")?.for).toEqual({ model: "anthropic/*" });
  });

  test("another provider's model: the model's rule does not apply, and no flag is suggested", () => {
    const json = explainJson(["--model", "openai/gpt-5"]);
    expect(reasons(json.notDelivered).claude).toBe("for model anthropic/* only; the session's model is openai/gpt-5");
    // A rule for an agent still lacks --agent.
    expect(reasons(json.notDelivered)["plan-notes"]).toBe(
      "for agent plan only; the session's agent is not known yet (give --agent)",
    );
  });

  test("a custom agent's file rule: applies for that agent (any case) once a file matches", () => {
    const json = explainJson(["src/app.ts", "--agent", "Reviewer"]);
    expect(json.agent).toBe("Reviewer");
    expect(reasons(json.delivered).review).toBe("files: src/app.ts matched src/**; for agent Reviewer");
    const noFile = explainJson(["--agent", "reviewer"]);
    expect(reasons(noFile.notDelivered).review).toBe("files: no file matched src/**");
  });

  test("--model splits at the first slash: openrouter/anthropic/… is OpenRouter's", async () => {
    await box.write({ ".opencode/rules/openrouter.md": "---\nmodels: openrouter/*\n---\nOpenRouter's limits.\n" });
    const json = explainJson(["--model", "openrouter/anthropic/claude-sonnet-4"]);
    expect(json.model).toBe("openrouter/anthropic/claude-sonnet-4");
    expect(names(json.delivered)).toEqual(["openrouter", "testing"]);
    expect(reasons(json.notDelivered).claude).toBe(
      "for model anthropic/* only; the session's model is openrouter/anthropic/claude-sonnet-4",
    );
  });

  test.each([["gpt-5"], ["/gpt-5"], ["openai/"]])(
    "--model %s without a provider and a model is wrong usage: exit 2, with what to write",
    (model) => {
      for (const command of ["explain", "render"]) {
        const { stdout, stderr, code } = box.run([command, "--model", model]);
        expect(code).toBe(2);
        expect(stdout).toBe("");
        expect(stderr).toBe(
          `opencode-rulebook: --model "${model}": give the provider and the model as provider/model, such as anthropic/claude-sonnet-4 (as opencode.json's "model" names it)\n`,
        );
      }
    },
  );

  test("--help names both flags", () => {
    for (const command of ["explain", "render"]) {
      const { stdout } = box.run([command, "--help"]);
      expect(stdout).toMatch(/--agent <name>\s+the agent the session works as \(build, plan,/);
      expect(stdout).toMatch(/-m, --model <provider\/model>\s+the model the session works on/);
    }
  });
});

describe("render --agent --model", () => {
  test("--agent plan: the plan session's message, the plan rule's block marked for agent plan", async () => {
    const { stdout, stderr, code } = box.run(["render", "--agent", "plan"]);
    expect(code).toBe(0);
    const expected = await composedFor({ files: [], facts: { agent: "plan" } });
    expect(stdout).toBe(`${expected}\n`);
    expect(stdout).toContain(
      '<rule name="plan-notes" scope="project" source="native" file=".opencode/rules/plan-notes.md" for="agent plan">\nPlan in numbered steps.\n</rule>',
    );
    expect(stdout).not.toContain('name="build-tests"');
    expect(stdout).not.toContain('name="claude"');
    expect(stderr).toMatch(
      /: 2 rules delivered, 0 listed on request, 0 left out; not for this agent or model \(see --agent, --model\): build-tests, claude, review\n$/,
    );
  });

  test("without flags: the message of a session whose agent is not known yet, naming the rules it leaves for other agents", async () => {
    const { stdout, stderr } = box.run(["render"]);
    expect(stdout).toBe(`${await composedFor({ files: [] })}\n`);
    expect(stdout).toContain('<rule name="testing"');
    expect(stdout).not.toContain(" for=");
    expect(stderr).toMatch(
      /1 rule delivered, 0 listed on request, 0 left out; not for this agent or model \(see --agent, --model\): build-tests, claude, plan-notes, review\n$/,
    );
  });

  test("--agent build --model anthropic/…, and a custom agent with its file", async () => {
    const build = box.run(["render", "--agent", "build", "--model", "anthropic/claude-sonnet-4"]);
    expect(build.stdout).toBe(
      `${await composedFor({ files: [], facts: { agent: "build", model: { providerID: "anthropic", modelID: "claude-sonnet-4" } } })}\n`,
    );
    expect(build.stdout).toContain('file=".opencode/rules/build-tests.md" for="agent build">');
    expect(build.stdout).toContain('file=".opencode/rules/claude.md" for="model anthropic/*">');
    expect(build.stdout).not.toContain('name="plan-notes"');

    const reviewer = box.run(["render", "--files", "src/app.ts", "--agent", "reviewer"]);
    expect(reviewer.stdout).toContain(
      'file=".opencode/rules/review.md" for="agent reviewer">\nGo through the review checklist.\n</rule>',
    );
    expect(reviewer.stdout).not.toContain('name="plan-notes"');
  });

  test("only rules for other agents: no message, and the rules it leaves are named", async () => {
    await rm(join(box.projectRules, "testing.md"));
    const { stdout, stderr, code } = box.run(["render"]);
    expect(code).toBe(0);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      "No rules message: no rule applies and none is on request; not for this agent or model (see --agent, --model): build-tests, claude, plan-notes, review.\n",
    );
  });
});

describe("list", () => {
  test("each rule's agents and models beside its activation; --json has them only for scoped rules", async () => {
    await box.write({
      ".opencode/rules/both.md": "---\nagents: plan, build\nmodels: [anthropic/*, openai/gpt-5*]\n---\nBoth.\n",
    });
    const { stdout, code } = box.run(["list"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}plan-notes\s+always · for agent plan\s+\d+ B/m);
    expect(stdout).toMatch(/^ {2}build-tests\s+always · for agent build\s+\d+ B/m);
    expect(stdout).toMatch(/^ {2}review\s+files: src\/\*\* · for agent reviewer\s+\d+ B/m);
    expect(stdout).toMatch(/^ {2}claude\s+always · for model anthropic\/\*\s+\d+ B/m);
    expect(stdout).toMatch(
      /^ {2}both\s+always · for agents plan, build; models anthropic\/\*, openai\/gpt-5\*\s+\d+ B/m,
    );
    expect(stdout).toMatch(/^ {2}testing\s+always\s+\d+ B/m);

    const json = JSON.parse(box.run(["list", "--json"]).stdout) as {
      rules: Array<Record<string, unknown> & { name: string }>;
    };
    const byName = new Map(json.rules.map((rule) => [rule.name, rule]));
    expect(byName.get("plan-notes")).toMatchObject({ agents: ["plan"] });
    expect(byName.get("plan-notes")).not.toHaveProperty("models");
    expect(byName.get("claude")).toMatchObject({ models: ["anthropic/*"] });
    expect(byName.get("claude")).not.toHaveProperty("agents");
    expect(byName.get("both")).toMatchObject({ agents: ["plan", "build"], models: ["anthropic/*", "openai/gpt-5*"] });
    expect(byName.get("testing")).not.toHaveProperty("agents");
    expect(byName.get("testing")).not.toHaveProperty("models");
  });
});

describe("check: agent names", () => {
  // The fixture's reviewer rule names an agent the sandbox does not define; each test defines what it needs.
  beforeEach(() => rm(join(box.projectRules, "review.md")));
  const BUILT_IN = "build, plan, general, explore, compaction, title, summary";
  const unknownWarning = (file: string, line: number, agent: string, known: string) =>
    `warning ${file}:${line}: agent "${agent}" in "agents" is neither built into OpenCode nor defined in your or the project's OpenCode config (known agents: ${known}); the rule applies to no session under that name\n`;

  test("a name no agent has is a warning naming the file, the line of agents:, the name and the known agents; the rule is kept", async () => {
    await box.write({
      ".opencode/rules/planner.md": "---\ndescription: Planning\nagents: [planner, plan]\n---\nPlan first.\n",
    });
    const { stdout, code } = box.run(["check"]);
    expect(code).toBe(0);
    expect(stdout).toBe(
      `${unknownWarning(".opencode/rules/planner.md", 3, "planner", BUILT_IN)}\n5 rule files checked, 5 rules in effect: 0 errors, 1 warning\n`,
    );

    const json = JSON.parse(box.run(["check", "--json"]).stdout);
    expect(json).toMatchObject({ ok: true, errors: 0, warnings: 1 });
    expect(json.problems).toEqual([
      expect.objectContaining({
        severity: "warning",
        displayPath: ".opencode/rules/planner.md",
        line: 3,
        rule: "planner",
        message: expect.stringContaining('agent "planner"'),
      }),
    ]);
    // Kept: a session under that name, were there one, would get it.
    expect(box.run(["explain", "--agent", "planner"]).stdout).toMatch(
      /^ {2}✓ planner\s+≈ \d+ tokens\s+always; for agent planner$/m,
    );
  });

  test("built-in agents, in any case, and the rules of the fixture are not warned about", async () => {
    await box.write({
      ".opencode/rules/all-built-in.md":
        "---\nagents: [Plan, BUILD, general, explore, compaction, title, summary]\n---\nText.\n",
    });
    const { stdout } = box.run(["check"]);
    expect(stdout).toBe("5 rule files checked, 5 rules in effect: 0 errors, 0 warnings\n");
  });

  /** Where an agent can be defined, and the name it defines there. */
  const DEFINITIONS: Array<[string, string, (box: Sandbox) => Record<string, string>]> = [
    [
      "opencode.json agent",
      "jsonbot",
      () => ({
        "opencode.json": JSON.stringify({ agent: { jsonbot: { description: "A JSON agent", mode: "subagent" } } }),
      }),
    ],
    [
      "opencode.jsonc mode (deprecated)",
      "focus",
      () => ({ "opencode.jsonc": '{\n  // an old-style mode\n  "mode": { "focus": { "prompt": "Focus." }, },\n}\n' }),
    ],
    [
      ".opencode/opencode.json agent",
      "nested-json",
      () => ({ ".opencode/opencode.json": JSON.stringify({ agent: { "nested-json": {} } }) }),
    ],
    [
      ".opencode/agent/*.md",
      "reviewer",
      () => ({ ".opencode/agent/reviewer.md": "---\ndescription: Reviews\n---\nReview.\n" }),
    ],
    [".opencode/agents/*.md", "docs", () => ({ ".opencode/agents/docs.md": "Write docs.\n" })],
    [
      ".opencode/agent/ sub-folder",
      "review/security",
      () => ({ ".opencode/agent/review/security.md": "Security review.\n" }),
    ],
    [
      "the global config folder's agent/",
      "globalbot",
      (box) => ({ [join(box.xdg, "opencode", "agent", "globalbot.md")]: "Global.\n" }),
    ],
    [
      "the global opencode.json",
      "userbot",
      (box) => ({ [join(box.xdg, "opencode", "opencode.json")]: JSON.stringify({ agent: { userbot: {} } }) }),
    ],
    ["~/.opencode/agents/", "homebot", (box) => ({ [join(box.home, ".opencode", "agents", "homebot.md")]: "Home.\n" })],
  ];

  test.each(DEFINITIONS)(
    "an agent defined in %s is known: warned about before, not after",
    async (_where, agent, definition) => {
      await box.write({ ".opencode/rules/custom.md": `---\nagents: [${JSON.stringify(agent)}]\n---\nFor ${agent}.\n` });
      expect(box.run(["check"]).stdout).toBe(
        `${unknownWarning(".opencode/rules/custom.md", 2, agent, BUILT_IN)}\n5 rule files checked, 5 rules in effect: 0 errors, 1 warning\n`,
      );
      await box.write(definition(box));
      expect(box.run(["check"]).stdout).toBe("5 rule files checked, 5 rules in effect: 0 errors, 0 warnings\n");
    },
  );

  test("the known agents are listed with those the config defines, cut short when there are many", async () => {
    const agent = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`helper-${i}`, {}]));
    await box.write({
      "opencode.json": JSON.stringify({ agent }),
      ".opencode/rules/typo.md": "---\nagents: helper-10\n---\nText.\n",
    });
    expect(box.run(["check"]).stdout).toContain(
      `(known agents: ${BUILT_IN}, helper-0, helper-1, helper-2, helper-3, helper-4 and 5 more); the rule applies`,
    );
  });

  test("a folder of agents in a sub-folder project (--cwd): read from the worktree down to it", async () => {
    await box.write({
      "packages/web/.opencode/agent/frontend.md": "Front end.\n",
      "packages/web/.opencode/rules/ui.md": "---\nagents: [frontend, backend]\n---\nUI.\n",
    });
    const { stdout } = box.run(["check", "--cwd", "packages/web"]);
    expect(stdout).toContain('packages/web/.opencode/rules/ui.md:2: agent "backend" in "agents"');
    expect(stdout).toContain(`(known agents: ${BUILT_IN}, frontend);`);
    expect(stdout).not.toContain('agent "frontend" in');
  });

  test("an untrusted repository: an agent folder linked outside it defines nothing", async () => {
    await box.write({
      [join(box.root, "outside", "leaked-name.md")]: "Outside.\n",
      ".opencode/rules/leak.md": "---\nagents: leaked-name\n---\nText.\n",
    });
    await mkdir(join(box.project, ".opencode"), { recursive: true });
    await symlink(join(box.root, "outside"), join(box.project, ".opencode", "agent"));
    const { stdout } = box.run(["check"]);
    expect(stdout).toContain(unknownWarning(".opencode/rules/leak.md", 2, "leaked-name", BUILT_IN));
  });

  test("more agent files than check reads: no name is warned about, and a note says so", async () => {
    const files = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`.opencode/agents/a${i}.md`, "x\n"]));
    await box.write({ ...files, ".opencode/rules/typo.md": "---\nagents: nobody\n---\nText.\n" });
    const { stdout, code } = box.run(["check"]);
    expect(code).toBe(0);
    expect(stdout).not.toContain('agent "nobody"');
    expect(stdout).toContain(
      'note    OpenCode\'s agent folders hold more than 1000 files or 200 folders, or nest too deep: names in "agents" were not checked\n',
    );
  });
});

test("check: the budget of a new session's message is counted per agent: rules for plan alone can exceed it", async () => {
  await box.write({
    "opencode.json": JSON.stringify({ plugin: [["opencode-rulebook", { maxMessageBytes: 900 }]] }),
    ".opencode/rules/plan-a.md": `---\nagents: [plan]\n---\n${"a".repeat(250)}\n`,
    ".opencode/rules/plan-b.md": `---\nagents: [plan]\npriority: 1\n---\n${"b".repeat(250)}\n`,
  });
  const { stdout } = box.run(["check"]);
  expect(stdout).toMatch(
    /^warning opencode\.json: the always-on rules for agent plan exceed the 900-byte message budget: [^\n]*plan-b[^\n]* left out/m,
  );
  expect(stdout).not.toMatch(/the always-on rules for agent build exceed/);
});
