/**
 * The OpenCode 2 adapter beyond the shared scenario table, on the simulated
 * host: a restart of OpenCode, subagent sessions, deleted sessions, a prompt
 * steered into a running turn, the system prompt left alone, the debug log.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import entry from "../../src/index.js";
import type { LlmMessage } from "../../src/hosts/opencode-2/api-llm.js";
import { type TempProject, tempProject } from "../support/fake-opencode.js";
import {
  type ModelReply,
  type ModelRequest,
  type Responder,
  type SimulatedHost,
  startSimulatedHost,
} from "../support/opencode-2-host.js";
import { SYSTEM_PROMPT } from "../support/opencode-2-loop.js";
import { writeTree } from "../support/temp-folder.js";

const MARK = { always: "MARK-V2-ALWAYS-1a", ts: "MARK-V2-TS-2b", keyword: "MARK-V2-MIGRATION-3c" } as const;
const RULES = {
  "house.md": `---\nalwaysApply: true\n---\n- ${MARK.always}\n`,
  "ts.md": `---\nglobs: src/**/*.ts\n---\n- ${MARK.ts}\n`,
  "migrations.md": `---\nkeywords: [migration]\n---\n- ${MARK.keyword}\n`,
};

/** A temporary home and project: no rules of the developer's own (home, config folders) leak in. */
let project: TempProject;
const hosts: SimulatedHost[] = [];

beforeAll(async () => {
  project = await tempProject();
  await writeTree(project.projectRulesDir, RULES);
  await writeTree(project.projectDir, { "src/app.ts": "export const answer = 42;\n" });
});

afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
  vi.restoreAllMocks();
});

afterAll(async () => {
  await project.cleanup();
});

/** A model that reads `src/app.ts` when asked to, and otherwise answers. */
const reader: Responder = (request) => {
  const last = request.messages.at(-1);
  const asked = last?.role === "user" && textOf([last]).includes("read the app");
  return asked ? { toolCalls: [{ name: "read", input: { path: "src/app.ts" } }] } : { text: "ok" };
};

async function start(options: Record<string, unknown> = {}, responder: Responder = reader): Promise<SimulatedHost> {
  const host = await startSimulatedHost({ plugin: entry, options, directory: project.projectDir, responder });
  hosts.push(host);
  return host;
}

const textOf = (messages: readonly LlmMessage[]) =>
  messages
    .flatMap((message) => message.content.map((part) => ("text" in part ? String(part.text) : JSON.stringify(part))))
    .join("\n");
const count = (request: ModelRequest | undefined, mark: string) =>
  textOf(request?.messages ?? []).split(mark).length - 1;

describe("OpenCode 2: state over a session's life", () => {
  test("after OpenCode restarts, the next request carries the same rules at the same places, each once", async () => {
    const host = await start();
    const session = host.createSession();
    await host.prompt(session, "Plan a migration, then read the app.");
    await host.prompt(session, "read the app");
    const before = host.requests(session).at(-1) as ModelRequest;
    expect([count(before, MARK.always), count(before, MARK.keyword), count(before, MARK.ts)]).toEqual([1, 1, 1]);
    await host.restart();
    await host.prompt(session, "Go on.");
    const after = host.requests(session).at(-1) as ModelRequest;
    // The request before the restart, plus its answer and the new message: the prompt cache holds across the restart.
    expect(after.messages.slice(0, before.messages.length)).toEqual(before.messages);
    expect([count(after, MARK.always), count(after, MARK.keyword), count(after, MARK.ts)]).toEqual([1, 1, 1]);
  });

  test("the system prompt is never touched", async () => {
    const host = await start();
    const session = host.createSession();
    await host.prompt(session, "read the app");
    for (const request of host.requests(session))
      expect(request.system).toEqual([{ type: "text", text: SYSTEM_PROMPT }]);
  });

  test("a subagent's session gets its rules by default, and none with subagents: false", async () => {
    const host = await start();
    const parent = host.createSession();
    const child = host.createSession({ parentID: parent });
    await host.prompt(child, "Do the subtask.");
    expect(count(host.requests(child)[0], MARK.always)).toBe(1);

    const quiet = await start({ subagents: false });
    const quietParent = quiet.createSession();
    const quietChild = quiet.createSession({ parentID: quietParent });
    await quiet.prompt(quietChild, "Do the subtask.");
    await quiet.prompt(quietParent, "Hello.");
    expect(count(quiet.requests(quietChild)[0], MARK.always)).toBe(0);
    expect(count(quiet.requests(quietParent)[0], MARK.always)).toBe(1);
  });

  test("a deleted session's state is released, its stored rules included", async () => {
    const host = await start();
    const session = host.createSession();
    await host.prompt(session, "Hello.");
    await vi.waitFor(() => expect(host.storedKeys()).toContain(`window/${session}`));
    host.deleteSession(session);
    await vi.waitFor(() => expect(host.storedKeys()).not.toContain(`window/${session}`));
  });

  test("a prompt steered into a running turn brings its rules with it, not before", async () => {
    let host: SimulatedHost | undefined;
    let steered: Promise<void> | undefined;
    const responder: Responder = (request, sessionID): ModelReply => {
      // While the first step runs, the user steers in a message about migrations.
      if (request.messages.length === 2 && !steered) {
        steered = host?.prompt(sessionID, "Also write a migration.");
        return { toolCalls: [{ name: "read", input: { path: "src/app.ts" } }] };
      }
      return { text: "ok" };
    };
    host = await start({}, responder);
    const session = host.createSession();
    await host.prompt(session, "Start.");
    await steered;
    const requests = host.requests(session);
    const firstWithSteer = requests.findIndex((request) =>
      textOf(request.messages).includes("Also write a migration."),
    );
    expect(firstWithSteer).toBeGreaterThan(0);
    expect(requests.slice(0, firstWithSteer).map((request) => count(request, MARK.keyword))).toEqual(
      requests.slice(0, firstWithSteer).map(() => 0),
    );
    const withSteer = textOf((requests[firstWithSteer] as ModelRequest).messages);
    expect(count(requests[firstWithSteer], MARK.keyword)).toBe(1);
    expect(withSteer.indexOf(MARK.keyword)).toBeLessThan(withSteer.indexOf("Also write a migration."));
  });

  test("with debug on, deliveries go to the plugin's log file beside OpenCode's logs, and nothing to the console", async () => {
    const written: string[] = [];
    for (const method of ["log", "info", "debug", "warn", "error"] as const)
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void written.push(args.join(" ")));
    const host = await start({ debug: true });
    const session = host.createSession();
    await host.prompt(session, "Hello.");
    const file = join(project.home, ".local", "share", "opencode", "log", "opencode-rulebook.log");
    await vi.waitFor(async () =>
      expect(await readFile(file, "utf8")).toMatch(
        new RegExp(`^\\S+ DEBUG Delivered \\d+ rules to session ${session} on new-session`, "m"),
      ),
    );
    expect(written).toEqual([]);
  });
});

describe("OpenCode 2: rules for one agent or one model (issue 13)", () => {
  const SCOPED = {
    plan: "MARK-V2-PLAN-4d",
    build: "MARK-V2-BUILD-5e",
    general: "MARK-V2-GENERAL-6f",
    sim: "MARK-V2-SIM-MODEL-7a",
    other: "MARK-V2-OTHER-MODEL-8b",
  } as const;
  let scoped: TempProject;

  beforeAll(async () => {
    scoped = await tempProject();
    await writeTree(scoped.projectRulesDir, {
      "house.md": `---\nalwaysApply: true\n---\n- ${MARK.always}\n`,
      "plan-notes.md": `---\nagents: [plan]\n---\n- ${SCOPED.plan}\n`,
      "build-checks.md": `---\nagents: build\n---\n- ${SCOPED.build}\n`,
      "general-brief.md": `---\nagents: [general]\n---\n- ${SCOPED.general}\n`,
      "sim-habits.md": `---\nmodels: ["sim/*"]\n---\n- ${SCOPED.sim}\n`,
      "claude-habits.md": `---\nmodels: anthropic/claude-*\n---\n- ${SCOPED.other}\n`,
    });
  });

  afterAll(async () => {
    await scoped.cleanup();
  });

  const startScoped = async (responder: Responder) => {
    const host = await startSimulatedHost({ plugin: entry, directory: scoped.projectDir, responder });
    hosts.push(host);
    return host;
  };

  test("a subagent session (agent general) gets its rule in its first request; the parent (build) never does", async () => {
    const host = await startScoped(() => ({ text: "ok" }));
    const parent = host.createSession({ agent: "build" });
    await host.prompt(parent, "Delegate the research.");
    const child = host.createSession({ parentID: parent, agent: "general" });
    await host.prompt(child, "Research the options.");
    const [first] = host.requests(child);
    expect(count(first, SCOPED.general)).toBe(1);
    expect(count(first, SCOPED.build)).toBe(0);
    expect(textOf(first?.messages ?? [])).toContain('for="agent general"');
    await host.prompt(parent, "Thanks.");
    for (const request of host.requests(parent)) {
      expect(count(request, SCOPED.general)).toBe(0);
      expect(count(request, SCOPED.build)).toBe(1);
    }
  });

  test("a rule for the session's model reaches it; a rule for another model does not", async () => {
    const host = await startScoped(() => ({ text: "ok" }));
    const onSim = host.createSession();
    await host.prompt(onSim, "Hello.");
    expect(count(host.requests(onSim)[0], SCOPED.sim)).toBe(1);
    expect(count(host.requests(onSim)[0], SCOPED.other)).toBe(0);
    const onClaude = host.createSession({ model: { providerID: "anthropic", id: "claude-sonnet-4" } });
    await host.prompt(onClaude, "Hello.");
    expect(count(host.requests(onClaude)[0], SCOPED.other)).toBe(1);
    expect(count(host.requests(onClaude)[0], SCOPED.sim)).toBe(0);
  });

  test("the request's agent comes first: a session whose stored info still says plan, prompted as build after a restart, gets build's rules", async () => {
    const host = await startScoped(() => ({ text: "ok" }));
    const session = host.createSession({ agent: "plan" });
    // The user switched to build; OpenCode's stored session info still names plan.
    host.switchAgent(session, "build", { info: "kept" });
    await host.restart();
    await host.prompt(session, "Build it.");
    const [request] = host.requests(session);
    expect(request?.agent).toBe("build");
    expect(count(request, SCOPED.build)).toBe(1);
    expect(count(request, SCOPED.plan)).toBe(0);
    expect(textOf(request?.messages ?? [])).not.toContain("Not in effect while you work as agent");
  });

  test("a prompt queued while a plan turn runs gets the rules of the agent its request is made as, before its words", async () => {
    let host: SimulatedHost | undefined;
    let session = "";
    let queued: Promise<void> | undefined;
    host = await startScoped((request) => {
      if (textOf(request.messages).includes("Plan it.") && queued === undefined) {
        // The user queues the next message and presses Tab while the plan turn still runs.
        queued = host?.prompt(session, "Now build it.", { delivery: "queue" });
        host?.switchAgent(session, "build");
      }
      return { text: "ok" };
    });
    session = host.createSession({ agent: "plan" });
    await host.prompt(session, "Plan it.");
    await queued;
    const [planned, built] = host.requests(session);
    expect(planned?.agent).toBe("plan");
    expect(count(planned, SCOPED.plan)).toBe(1);
    expect(count(planned, SCOPED.build)).toBe(0);
    expect(built?.agent).toBe("build");
    expect(count(built, SCOPED.build)).toBe(1);
    expect(count(built, SCOPED.plan)).toBe(1);
    const words = textOf(built?.messages ?? []);
    expect(words.lastIndexOf(SCOPED.build)).toBeLessThan(words.lastIndexOf("Now build it."));
    expect(words.lastIndexOf("Not in effect while you work as agent build")).toBeGreaterThan(words.indexOf("Plan it."));
    expect(built?.messages.slice(0, planned?.messages.length)).toEqual(planned?.messages);
  });
});
