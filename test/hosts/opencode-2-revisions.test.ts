/**
 * The plugin on each OpenCode 2 revision the simulated host can be (issue 39,
 * `test/support/opencode-2-revisions.ts`): what each does to a plugin's tool,
 * and what the plugin does where a revision lacks something. The scenario
 * tables (test/e2e/scenarios.test.ts, enforce-scenarios.test.ts) run the
 * rules themselves on 2.0.26 and the July trunk.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import entry from "../../src/index.js";
import { RULE_TOOL_INPUT } from "../../src/hosts/opencode/rule-tool.js";
import type { PluginContext } from "../../src/hosts/opencode-2/api.js";
import type { LlmMessage } from "../../src/hosts/opencode-2/api-llm.js";
import { type TempProject, tempProject } from "../support/fake-opencode.js";
import {
  type HostRevision,
  type ModelReply,
  type Responder,
  type SimulatedHost,
  startSimulatedHost,
} from "../support/opencode-2-host.js";
import { writeTree } from "../support/temp-folder.js";

const MARK = { always: "MARK-REV-ALWAYS-41", secrets: "MARK-REV-SECRETS-42" } as const;
const RULES = {
  "house.md": `---\nalwaysApply: true\n---\n- ${MARK.always}\n`,
  "secrets.md": `---\ndescription: Handling secrets and credentials\nalwaysApply: false\n---\n- ${MARK.secrets}\n`,
};

let project: TempProject;
const hosts: SimulatedHost[] = [];

beforeEach(async () => {
  project = await tempProject();
  await writeTree(project.projectRulesDir, RULES);
});

afterEach(async () => {
  // Last started, first stopped: a host without a location gives back the folder it was started in.
  for (const host of hosts.splice(0).reverse()) await host.stop();
  vi.restoreAllMocks();
  await project.cleanup();
});

/** A model that takes the given steps, then answers. */
const script = (...steps: ModelReply[]): Responder => {
  const left = [...steps];
  return () => left.shift() ?? { text: "ok" };
};

async function start(
  revision: HostRevision,
  plugin: unknown = entry,
  responder: Responder = script(),
): Promise<SimulatedHost> {
  const host = await startSimulatedHost({ plugin, directory: project.projectDir, responder, revision });
  hosts.push(host);
  return host;
}

const textOf = (messages: readonly LlmMessage[] = []) =>
  messages
    .flatMap((message) => message.content.map((part) => ("text" in part ? String(part.text) : JSON.stringify(part))))
    .join("\n");
const logFile = () => join(project.home, ".local", "share", "opencode", "log", "opencode-rulebook.log");

/** A plugin that adds one tool whose input is a plain JSON Schema, as 2.0.26 allows. */
const plainToolPlugin = {
  id: "plain-tool",
  setup: async (ctx: PluginContext) => {
    await ctx.tool.transform((editor) =>
      editor.add({
        name: "plain",
        description: "p",
        input: { type: "object" },
        options: { codemode: false },
        execute: async () => ({ content: "ran" }),
      }),
    );
  },
};

describe("a plugin's tool on each revision", () => {
  test("the trunk: a tool with a plain JSON Schema input fails every session execution; the rule tool does not, and answers", async () => {
    const broken = await start("trunk", plainToolPlugin);
    const session = broken.createSession();
    await expect(broken.prompt(session, "hello")).rejects.toThrow(/schema\["~standard"\]\.jsonSchema/);
    expect(broken.failedExecutions()).toHaveLength(1);

    const host = await start("trunk", entry, script({ toolCalls: [{ name: "rule", input: { name: "secrets" } }] }));
    const ours = host.createSession();
    await host.prompt(ours, "Store the key.");
    expect(host.failedExecutions()).toEqual([]);
    const [first, second] = host.requests(ours);
    // The model's schema is the plain one, given as the dynamic tool's `jsonSchema`.
    expect(first?.tools.rule?.input).toEqual(RULE_TOOL_INPUT);
    expect(textOf(first?.messages)).not.toContain(MARK.secrets);
    expect(textOf(second?.messages)).toContain(MARK.secrets);
  });

  test("2.0.26: the schema the model gets is the plain one; a malformed call is a tool error the model reads, not a crash", async () => {
    const host = await start("2.0.26", entry, script({ toolCalls: [{ name: "rule", input: { name: 5 } }] }));
    const session = host.createSession();
    await host.prompt(session, "Read a rule.");
    const [first, second] = host.requests(session);
    expect(first?.tools.rule?.input).toEqual(RULE_TOOL_INPUT);
    expect(textOf(second?.messages)).toContain("Invalid arguments for tool");
    expect(host.crashedSteps()).toEqual([]);
  });

  test("a draft whose add takes a name first (efeff6374): a tool handed over alone breaks every request; the plugin leaves its tool out and gives on-request rules whole", async () => {
    const naive = {
      id: "naive",
      setup: async (ctx: PluginContext) => {
        await ctx.tool.transform((editor) =>
          editor.add({
            name: "x",
            description: "x",
            input: {},
            jsonSchema: {},
            options: { codemode: false },
            execute: async () => ({ structured: {}, content: [] }),
          }),
        );
      },
    };
    const broken = await start("name-first-tools", naive);
    await expect(broken.prompt(broken.createSession(), "hello")).rejects.toThrow();
    expect(broken.failedExecutions()).toHaveLength(1);

    const host = await start("name-first-tools");
    const session = host.createSession();
    await host.prompt(session, "Say hello.");
    await host.prompt(session, "And goodbye.");
    expect(host.failedExecutions()).toEqual([]);
    const [first, second] = host.requests(session);
    expect(Object.keys(first?.tools ?? {})).not.toContain("rule");
    expect(textOf(first?.messages).split(MARK.secrets)).toHaveLength(2);
    expect(textOf(first?.messages)).toContain("- secrets: Handling secrets and credentials");
    expect(textOf(first?.messages)).not.toContain("`rule` tool");
    expect(textOf(second?.messages).split(MARK.secrets)).toHaveLength(2);
    await vi.waitFor(async () =>
      expect(await readFile(logFile(), "utf8")).toContain(
        "the rule tool is left out, and on-request rules are given whole",
      ),
    );
  });
});

describe("what a revision lacks", () => {
  test("no session hooks: the plugin says so once, on stderr and in its log, naming what it needs and what it got; the session works without rules", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const host = await start("no-session-hooks");
    const session = host.createSession();
    await host.prompt(session, "hello");
    expect(textOf(host.requests(session)[0]?.messages)).not.toContain(MARK.always);
    const said = stderr.mock.calls.map(([text]) => String(text)).filter((text) => text.includes("cannot work"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("it needs the session hooks of OpenCode 2's plugin API (ctx.session.hook");
    expect(said[0]).toContain(
      "agent, aisdk, catalog, command, event, integration, options, plugin, reference, session, skill, tool (its session domain has no hook)",
    );
    await vi.waitFor(async () =>
      expect(await readFile(logFile(), "utf8")).toContain("opencode-rulebook cannot work on this OpenCode"),
    );
  });

  test("the trunk: no location (the folder it runs in, said once as a warning), no storage (memory), no RPC (no panel): the rules arrive all the same", async () => {
    const host = await start("trunk");
    const session = host.createSession();
    await host.prompt(session, "hello");
    expect(textOf(host.requests(session)[0]?.messages)).toContain(MARK.always);
    expect(host.storedKeys()).toEqual([]);
    await vi.waitFor(async () => {
      const log = await readFile(logFile(), "utf8");
      expect(log.match(/does not tell plugins where they run/g)).toHaveLength(1);
      expect(log).toMatch(/WARN .*reading the rules of .*rulebook-test-.*, the folder it runs in/);
      expect(log).toMatch(/INFO .*gives plugins no storage/);
      expect(log).toMatch(/INFO .*offers plugins no RPC: the Rules panel stays empty/);
    });
  });

  test("the trunk: after a restart without storage, the next request carries the rules once, placed again", async () => {
    const host = await start("trunk");
    const session = host.createSession();
    await host.prompt(session, "one");
    await host.restart();
    await host.prompt(session, "two");
    const last = host.requests(session).at(-1);
    expect(textOf(last?.messages).split(MARK.always)).toHaveLength(2);
  });
});
