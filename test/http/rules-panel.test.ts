/**
 * The Rules panel over a history the real plugin wrote (entry, SDK client,
 * fake server): what OpenCode's terminal UI would show in its sidebar
 * (`src/hosts/opencode-1/tui-panel.ts`, drawn with a stand-in for
 * `@opentui/solid`) as rules activate, after a restart of the terminal UI
 * and after a compaction. The markers are the plugin's own: in its rules
 * parts, and in the tool results it gave rules with; each rule's figure is
 * what `ruleTokens` says it costs (the figure `list` gives).
 */
import type { Hooks } from "@opencode-ai/plugin";
import { join } from "node:path";
import { beforeEach, describe, expect, test } from "vitest";
import { MARKER_KEY } from "../../src/session/marker.js";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { DEFAULT_MAX_RULE_BYTES } from "../../src/discover/discover.js";
import { loadRules } from "../../src/formats/load.js";
import { ruleTokens } from "../../src/render/tokens.js";
import {
  PANEL_ORDER,
  registerRulesPanel,
  type PanelApi,
  type PanelSlotPlugin,
} from "../../src/hosts/opencode-1/tui-panel.js";
import type { PanelUi } from "../../src/panel/panel-block.js";
import {
  sessionCompacted,
  sessionCreated,
  startPlugin,
  tempProject,
  type FakeOpencode,
  type TempProject,
  useFakeOpencode,
} from "../support/fake-opencode.js";
import { compactionMessage, type StoredMessage, summaryMessage, userMessage } from "../support/opencode-1-messages.js";
import { writeRulesByTrigger } from "../support/trigger-rules.js";

const fake = useFakeOpencode();
let server: FakeOpencode;
let project: TempProject;
let hooks: Hooks;
/** Each rule's cost as the plugin estimates it, by name. */
let costs: Map<string, number>;
let clock = 1_800_000_000_000;
/** The next message's creation time: one second after the last. */
const tick = () => {
  clock += 1000;
  return clock;
};
let ids = 0;

beforeEach(async () => {
  ({ server, project } = fake);
  await project.writeRule("project", "style-guide.md", "Write small functions.\n");
  await writeRulesByTrigger(project, "database/migrations.md");
  await project.writeRule("project", "plan-notes.md", "---\nagents: plan\n---\nPlans list their risks.\n");
  hooks = await startPlugin(project);
  const { home, projectDir } = project;
  const env = { HOME: home, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  const loaded = await loadRules({
    env,
    home,
    directory: projectDir,
    worktree: projectDir,
    fs: nodeRuleFs,
    maxRuleBytes: DEFAULT_MAX_RULE_BYTES,
  });
  costs = new Map(loaded.rules.map((rule) => [rule.name, ruleTokens(rule)]));
});

/** A rule's line in the panel: its name and what it costs. */
const named = (name: string) => `• ${name} · ≈ ${costs.get(name)} tokens`;
/** The heading of the rules in context: how many, and what the named ones cost together. */
const inContext = (names: string[], more = 0) =>
  `In context (${names.length + more} · ≈ ${names.reduce((sum, name) => sum + (costs.get(name) ?? 0), 0)} tokens${more > 0 ? ` for ${names.length}` : ""})`;

const history = (sessionID: string) => server.history.get(sessionID) ?? [];
const store = (sessionID: string, message: StoredMessage) =>
  server.history.set(sessionID, [...history(sessionID), message]);
const nextId = (prefix: string) => `${prefix}_${String(++ids).padStart(12, "0")}`;

/** A user's message as OpenCode runs `chat.message` for it, then stores it with the parts the plugin added. */
async function send(sessionID: string, text: string, agent = "build") {
  const id = nextId("msg");
  const message = userMessage(sessionID, id, { created: tick(), agent });
  const output = { message, parts: [{ id: nextId("prt"), sessionID, messageID: id, type: "text", text }] as never[] };
  await hooks["chat.message"]?.({ sessionID }, output);
  store(sessionID, { info: message, parts: output.parts });
}

/** An assistant turn that calls a tool: OpenCode stores the result's output and metadata as the tool part's state. */
async function toolTurn(sessionID: string, tool: string, args: Record<string, unknown>, run?: () => Promise<unknown>) {
  const output = { title: tool, output: "file contents", metadata: { preview: "…" } as Record<string, unknown> };
  await hooks["tool.execute.before"]?.({ tool, sessionID, callID: "c" }, { args });
  if (run) {
    const result = (await run()) as string | { output: string; metadata?: Record<string, unknown> };
    Object.assign(output, typeof result === "string" ? { output: result, metadata: {} } : result);
  }
  await hooks["tool.execute.after"]?.({ tool, sessionID, callID: "c", args }, output);
  const info = { id: nextId("msg"), sessionID, role: "assistant", time: { created: tick() }, finish: "tool-calls" };
  store(sessionID, {
    info,
    parts: [
      {
        type: "tool",
        tool,
        state: { status: "completed", input: args, output: output.output, metadata: output.metadata },
      },
    ],
  });
  return output;
}

/** A stand-in for `@opentui/solid` and `solid-js`: elements are plain objects, inserted accessors are read when drawn. */
type FakeNode = { tag: string; props: Record<string, unknown>; children: unknown[] };
const ui: PanelUi<FakeNode> = {
  createElement: (tag) => ({ tag, props: {}, children: [] }),
  insert: (parent, value) => void parent.children.push(value),
  setProp: (node, name, value) => {
    node.props[name] = value;
  },
  effect: (fn) => fn(),
  createSignal: <T>(value: T) => {
    let current = value;
    const set = (next: T) => {
      current = next;
    };
    return [() => current, set] as [() => T, (value: T) => void];
  },
  createMemo: (fn) => fn,
};
const textOf = (value: unknown): string =>
  typeof value === "function"
    ? textOf(value())
    : Array.isArray(value)
      ? value.map(textOf).join("\n")
      : typeof value === "string"
        ? value
        : textOf((value as FakeNode).children);

/** The terminal UI's plugin API over the fake server's stored messages, as its sync store holds them. */
function terminalUi() {
  let registered: PanelSlotPlugin | undefined;
  const api: PanelApi = {
    state: {
      session: { messages: (sessionID) => history(sessionID).map((message) => message.info as never) },
      part: (messageID) =>
        [...server.history.values()].flat().find((message) => message.info.id === messageID)?.parts ?? [],
    },
    theme: { current: { text: "#fff", textMuted: "#888", warning: "#fa0" } },
    slots: {
      register: (plugin) => {
        registered = plugin;
        return "rules";
      },
    },
  };
  registerRulesPanel(api, ui);
  return {
    order: registered?.order,
    /** The sidebar block for a session: its lines now (it is drawn again from the store each time). */
    sidebar(sessionID: string) {
      const block = registered?.slots.sidebar_content({}, { session_id: sessionID }) as FakeNode;
      return { visible: block.props.visible, lines: textOf(block).split("\n") };
    },
  };
}

describe("the Rules panel in the sidebar, from the session's own messages", () => {
  test("it follows the session: always-on rules first, then a file rule with the file and glob, a keyword rule, a rule read on request", async () => {
    const tui = terminalUi();
    expect(tui.order).toBe(PANEL_ORDER);
    const created = hooks.event?.(sessionCreated("ses_1") as never);
    await send("ses_1", "What does this project do?");
    await created;
    expect(tui.sidebar("ses_1").lines).toEqual([
      "Rules",
      inContext(["style-guide"]),
      named("style-guide"),
      "  always",
      "On request (1)",
      "  security",
    ]);

    const read = await toolTurn("ses_1", "read", { filePath: join(project.projectDir, "src", "app.ts") });
    // The result keeps OpenCode's own metadata beside the plugin's marker.
    expect(read.metadata).toMatchObject({ preview: "…", [MARKER_KEY]: { rules: ["typescript"] } });
    expect(tui.sidebar("ses_1").lines.slice(1)).toEqual([
      inContext(["style-guide", "typescript"]),
      named("style-guide"),
      "  always",
      named("typescript"),
      "  file src/app.ts matched src/**/*.ts",
      "On request (1)",
      "  security",
    ]);

    await send("ses_1", "Plan a migration for users");
    expect(tui.sidebar("ses_1").lines).toContain(named("database/migrations"));
    expect(tui.sidebar("ses_1").lines).toContain('  keyword "migration"');

    const tool = hooks.tool?.rule;
    await toolTurn("ses_1", "rule", { name: "security" }, () =>
      tool!.execute({ name: "security" } as never, { sessionID: "ses_1" } as never),
    );
    const lines = tui.sidebar("ses_1").lines;
    // The rule tool's answer gives its figure too: the total covers every rule in context.
    expect(lines.slice(-2)).toEqual([named("security"), "  read on request"]);
    expect(lines[1]).toBe(inContext(["style-guide", "typescript", "database/migrations", "security"]));
    expect(lines).not.toContain("On request (1)");
  });

  test("an agent's rule says so; switching agent sets it aside", async () => {
    const tui = terminalUi();
    const created = hooks.event?.(sessionCreated("ses_p") as never);
    await send("ses_p", "draft a plan", "plan");
    await created;
    expect(tui.sidebar("ses_p").lines).toContain("  always · agent plan");
    await send("ses_p", "now build it", "build");
    expect(tui.sidebar("ses_p").lines).toEqual([
      "Rules",
      inContext(["style-guide"]),
      named("style-guide"),
      "  always",
      "Set aside for now (1)",
      named("plan-notes"),
      "  given for agent plan",
      "On request (1)",
      "  security",
    ]);
  });

  test("a restarted terminal UI (a new panel over the same messages) shows the same; another session shows its own", async () => {
    const created = hooks.event?.(sessionCreated("ses_1") as never);
    await send("ses_1", "Plan a migration");
    await created;
    const before = terminalUi().sidebar("ses_1");
    expect(terminalUi().sidebar("ses_1")).toEqual(before);
    expect(before.lines).toContain(named("database/migrations"));
    expect(terminalUi().sidebar("ses_other")).toEqual({ visible: false, lines: [""] });
  });

  test("after a compaction: the rules of the old window leave, the re-delivered ones come back", async () => {
    const tui = terminalUi();
    const created = hooks.event?.(sessionCreated("ses_c") as never);
    await send("ses_c", "Plan a migration");
    await created;
    await toolTurn("ses_c", "read", { filePath: join(project.projectDir, "src", "app.ts") });
    // OpenCode's compaction: its message, then the summary answering it.
    const compaction = nextId("msg");
    store("ses_c", compactionMessage(compaction, tick(), { sessionID: "ses_c" }));
    store("ses_c", summaryMessage(nextId("msg"), compaction, tick()));
    expect(tui.sidebar("ses_c")).toEqual({ visible: false, lines: [""] });
    await hooks.event?.(sessionCompacted("ses_c") as never);
    const lines = tui.sidebar("ses_c").lines;
    expect(lines).toEqual(
      expect.arrayContaining([
        named("style-guide"),
        named("database/migrations"),
        named("typescript"),
        "  file src/app.ts matched src/**/*.ts",
      ]),
    );
  });

  test("no rule in the project: the plugin writes nothing and the panel shows nothing", async () => {
    const empty = await tempProject();
    try {
      hooks = await startPlugin(empty);
      const tui = terminalUi();
      const created = hooks.event?.(sessionCreated("ses_none") as never);
      await send("ses_none", "hello");
      await created;
      expect(history("ses_none")).toHaveLength(1);
      expect(server.prompts).toEqual([]);
      expect(tui.sidebar("ses_none").visible).toBe(false);
    } finally {
      await empty.cleanup();
    }
  });
});

test("a message of a shape the panel does not know: no block, one warning in the terminal UI's console, the sidebar unharmed", async () => {
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (line: string) => void warnings.push(line);
  try {
    store("ses_odd", { info: { id: "msg_odd", role: "user" }, parts: 5 as never });
    const tui = terminalUi();
    expect(tui.sidebar("ses_odd")).toEqual({ visible: false, lines: [""] });
    tui.sidebar("ses_odd");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^opencode-rulebook: the Rules panel could not read session ses_odd; it shows nothing for it: /,
    );
  } finally {
    console.warn = warn;
  }
});
