/**
 * An OpenCode server as the plugin sees it over HTTP: msw answers the routes
 * the plugin calls and records every request body, and the plugin gets a
 * real `@opencode-ai/sdk` client pointed at it.
 */
import { createOpencodeClient } from "@opencode-ai/sdk";
import type { Hooks, PluginInput } from "@opencode-ai/plugin";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { join } from "node:path";
import entry from "../../src/index.js";
import { createLogger } from "../../src/log.js";
import { parseOptions } from "../../src/options.js";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { startEngineWithClient, type TestEngine, type TestEngineDeps } from "./opencode-1-engine.js";
import { tempTree } from "./temp-folder.js";

export const BASE_URL = "http://127.0.0.1:4999";

export interface PromptRequest {
  sessionID: string;
  body: {
    noReply?: boolean;
    agent?: string;
    model?: { providerID: string; modelID: string };
    parts: Array<{ type: string; text: string; synthetic?: boolean; metadata?: Record<string, unknown> }>;
  };
}

export interface LogRequest {
  service: string;
  level: string;
  message: string;
  extra?: Record<string, unknown>;
}

/** What the fake server answers to a prompt: a status (after a delay), or a thrown network error. */
export type PromptAnswer = { status: number; delayMs?: number } | "network-error";

export const fakeServer = setupServer();

export interface FakeOpencode {
  prompts: PromptRequest[];
  /** Messages stored per session (answered to GET /session/:id/message). */
  history: Map<string, Array<{ info: Record<string, unknown>; parts: Array<Record<string, unknown>> }>>;
  logs: LogRequest[];
  /** Answers for the next prompts, in order; afterwards 200. */
  answers: PromptAnswer[];
}

/** Installs handlers that record requests. Call in beforeEach after `fakeServer.listen()`. */
export function recordRequests(): FakeOpencode {
  const state: FakeOpencode = { prompts: [], logs: [], answers: [], history: new Map() };
  let clock = 1_700_000_000_000;
  fakeServer.use(
    http.post(`${BASE_URL}/session/:id/message`, async ({ request, params }) => {
      const body = (await request.json()) as PromptRequest["body"];
      state.prompts.push({ sessionID: String(params.id), body });
      const answer = state.answers.shift() ?? { status: 200 };
      if (answer === "network-error") return HttpResponse.error();
      if (answer.status !== 200)
        return HttpResponse.json(
          { name: "UnknownError", data: { message: `status ${answer.status}` } },
          { status: answer.status },
        );
      clock += 10;
      const info = {
        id: `msg_${state.prompts.length}`,
        sessionID: params.id,
        role: "user",
        time: { created: clock },
        agent: body.agent ?? "build",
        model: body.model ?? { providerID: "p", modelID: "m" },
      };
      // Stored before the answer: a slow answer may arrive after the client gave up, yet the message exists.
      const messages = state.history.get(String(params.id)) ?? [];
      messages.push({ info, parts: body.parts.map((part) => ({ ...part })) });
      state.history.set(String(params.id), messages);
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      return HttpResponse.json({ info, parts: [] });
    }),
    http.get(`${BASE_URL}/session/:id/message`, ({ params }) =>
      HttpResponse.json(state.history.get(String(params.id)) ?? []),
    ),
    http.post(`${BASE_URL}/log`, async ({ request }) => {
      state.logs.push((await request.json()) as LogRequest);
      return HttpResponse.json(true);
    }),
  );
  return state;
}

export interface TempProject {
  root: string;
  home: string;
  projectDir: string;
  globalRulesDir: string;
  projectRulesDir: string;
  /** Writes a file under the project or global rules folder (path relative to it). */
  writeRule(scope: "global" | "project", relPath: string, text: string | Uint8Array): Promise<string>;
  cleanup(): Promise<void>;
}

/** A temporary home and project; `process.env` points the global rules folder into it. */
export async function tempProject(): Promise<TempProject> {
  const tree = await tempTree("rulebook-test-");
  const { root, home, project: projectDir, configHome } = tree;
  const saved = {
    HOME: process.env.HOME,
    XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME,
    OPENCODE_CONFIG_DIR: process.env.OPENCODE_CONFIG_DIR,
    OPENCODE_RULEBOOK_DEBUG: process.env.OPENCODE_RULEBOOK_DEBUG,
    XDG_DATA_HOME: process.env.XDG_DATA_HOME,
    XDG_STATE_HOME: process.env.XDG_STATE_HOME,
    OPENCODE_RULEBOOK_RECORD: process.env.OPENCODE_RULEBOOK_RECORD,
  };
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = configHome;
  // OpenCode 2's plugin writes its log in OpenCode's data folder: a test's goes to its own.
  process.env.XDG_DATA_HOME = join(home, ".local", "share");
  // …and its record of what the rules did in its own state folder.
  process.env.XDG_STATE_HOME = join(home, ".local", "state");
  delete process.env.OPENCODE_RULEBOOK_RECORD;
  delete process.env.OPENCODE_CONFIG_DIR;
  delete process.env.OPENCODE_RULEBOOK_DEBUG;
  const project: TempProject = {
    root,
    home,
    projectDir,
    globalRulesDir: tree.globalRules,
    projectRulesDir: tree.projectRules,
    async writeRule(scope, relPath, text) {
      const [path] = await tree.write(scope === "global" ? project.globalRulesDir : project.projectRulesDir, {
        [relPath]: text,
      });
      return path as string;
    },
    async cleanup() {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      await tree.cleanup();
    },
  };
  return project;
}

/** Starts the real plugin entry against the fake server, as OpenCode would. */
export async function startPlugin(project: TempProject, options?: Record<string, unknown>): Promise<Hooks> {
  const client = createOpencodeClient({ baseUrl: BASE_URL });
  const input = {
    client,
    directory: project.projectDir,
    worktree: project.projectDir,
    project: { id: "p", worktree: project.projectDir, time: { created: 0 } },
    serverUrl: new URL(BASE_URL),
    experimental_workspace: { register() {} },
    $: undefined,
  } as unknown as PluginInput;
  return entry.server(input, options);
}

/** A `session.created` event as OpenCode publishes it. */
export function sessionCreated(id: string, extra: Record<string, unknown> = {}) {
  return {
    event: {
      type: "session.created" as const,
      properties: {
        info: {
          id,
          projectID: "p",
          directory: "/p",
          title: "t",
          version: "1",
          time: { created: 0, updated: 0 },
          ...extra,
        },
      },
    },
  };
}

export function sessionCompacted(sessionID: string) {
  return { event: { type: "session.compacted" as const, properties: { sessionID } } };
}

/** Lets log requests in flight reach the fake server. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 5));
}

/**
 * Registers, for the calling test file: msw listening for the whole file, and
 * per test fresh request records and a fresh temporary project, cleaned up
 * after. The returned object holds the current test's pair.
 */
export function useFakeOpencode(): { server: FakeOpencode; project: TempProject } {
  const current = {} as { server: FakeOpencode; project: TempProject };
  beforeAll(() => fakeServer.listen({ onUnhandledRequest: "error" }));
  afterAll(() => fakeServer.close());
  beforeEach(async () => {
    current.server = recordRequests();
    current.project = await tempProject();
  });
  afterEach(async () => {
    fakeServer.resetHandlers();
    await current.project.cleanup();
  });
  return current;
}

/**
 * The engine itself (no entry) on the temporary project, talking to the fake
 * server, its log lines collected in `logged`: for tests that set the
 * engine's bounds and timings.
 */
export function startTestEngine(
  project: TempProject,
  logged: string[],
  overrides: Partial<TestEngineDeps> & { rawOptions?: Record<string, unknown> } = {},
): Promise<TestEngine> {
  const { rawOptions, ...deps } = overrides;
  return startEngineWithClient({
    client: createOpencodeClient({ baseUrl: BASE_URL }) as never,
    directory: project.projectDir,
    worktree: project.projectDir,
    env: process.env,
    home: project.home,
    fs: nodeRuleFs,
    options: parseOptions(rawOptions ?? {}, {}).options,
    log: createLogger(async (level, message) => void logged.push(`${level}: ${message}`), false),
    retry: { tries: 3, backoffMs: [20, 20] },
    ...deps,
  });
}
