/**
 * The engine behind OpenCode 1's hooks, for tests that set its bounds and
 * timings or give it a misbehaving client: the same adapter the entry uses,
 * with the hooks under the names the tests call them, and the engine's
 * report of a session.
 */
import type { Hooks } from "@opencode-ai/plugin";
import type { Event } from "@opencode-ai/sdk";
import { startRulebook, type EngineDeps, type RunningRulebook } from "../../src/engine/rulebook.js";
import { hooksFor, OPENCODE_1_LABELS } from "../../src/hosts/opencode-1/plugin.js";
import { sessionPort, type OpencodeClient } from "../../src/hosts/opencode-1/session-port.js";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { createLogger } from "../../src/log.js";
import { parseOptions } from "../../src/options.js";
import type { TempProject } from "./fake-opencode.js";

/** The parts of OpenCode's hook inputs the engine reads: tests give only those. */
type Output<K extends "chat.message" | "tool.execute.after"> = Parameters<NonNullable<Hooks[K]>>[1];
interface ToolInput {
  tool: string;
  sessionID: string;
  callID: string;
  args?: unknown;
}

export interface TestEngine {
  hooks: Hooks;
  onEvent(event: Event): Promise<void>;
  onChatMessage(
    input: { sessionID: string; agent?: string; model?: { providerID: string; modelID: string } },
    output: Output<"chat.message">,
  ): Promise<void>;
  onCompacting(input: { sessionID: string }): Promise<void>;
  onCompactionAutocontinue(input: {
    sessionID: string;
    agent: string;
    model: { id: string; providerID: string };
    message?: { id: string };
  }): Promise<void>;
  onToolBefore(input: ToolInput, output: { args: unknown }): Promise<void>;
  onToolAfter(input: ToolInput, output: Output<"tool.execute.after">): Promise<void>;
  readRule: RunningRulebook["ruleRequested"];
  report: RunningRulebook["report"];
  loaded: RunningRulebook["loaded"];
  dispose(): void;
}

export type TestEngineDeps = Omit<EngineDeps, "port"> & { client: OpencodeClient };

/** What the engine needs besides its port, over a temporary project: default options, the real file system, its log lines into `logged`, quick retries, no grace period. */
export function engineDepsOver(
  project: Pick<TempProject, "projectDir" | "home">,
  logged: string[],
  debug = true,
): Omit<EngineDeps, "port"> {
  return {
    directory: project.projectDir,
    worktree: project.projectDir,
    env: process.env,
    home: project.home,
    fs: nodeRuleFs,
    options: parseOptions({}, {}).options,
    log: createLogger(async (level, message) => void logged.push(`${level}: ${message}`), debug),
    retry: { tries: 2, backoffMs: [5] },
    creationGraceMs: 0,
  };
}

export async function startEngineWithClient({ client, ...deps }: TestEngineDeps): Promise<TestEngine> {
  const rulebook = await startRulebook({ ...deps, labels: OPENCODE_1_LABELS, port: sessionPort(client) });
  const hooks = hooksFor(rulebook, deps.log);
  return {
    hooks,
    onEvent: async (event) => hooks.event?.({ event }),
    onChatMessage: async (input, output) => hooks["chat.message"]?.(input, output),
    onCompacting: async (input) => hooks["experimental.session.compacting"]?.(input, { context: [] }),
    onCompactionAutocontinue: async (input) =>
      hooks["experimental.compaction.autocontinue"]?.(input as never, { enabled: true }),
    onToolBefore: async (input, output) => hooks["tool.execute.before"]?.(input as never, output),
    onToolAfter: async (input, output) => hooks["tool.execute.after"]?.(input as never, output),
    readRule: (sessionID, name) => rulebook.ruleRequested(sessionID, name),
    report: (sessionID) => rulebook.report(sessionID),
    loaded: () => rulebook.loaded(),
    dispose: () => rulebook.dispose(),
  };
}
