/**
 * The scenario table's OpenCode 2 host: the built plugin (`dist/index.js`,
 * loaded as OpenCode 2 loads a module: its default export) in the simulated
 * host of `test/support/opencode-2-host.ts`, with a scripted model.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { LlmContentPart, LlmMessage } from "../../src/hosts/opencode-2/api-llm.js";
import {
  type HostRevision,
  type ModelReply,
  type ModelRequest,
  type SimulatedHost,
  startSimulatedHost,
} from "./opencode-2-host.js";
import { type SimulatedTui, startSimulatedTui } from "./opencode-2-tui.js";
import { writeTree } from "./temp-folder.js";
import type { HostDriver, HostSetup, ModelStep, SeenMessage, SeenRequest } from "./scenario-driver.js";
import { tempFolder } from "./temp-folder.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
/** The plugin watches its rule folders; a rule written is seen within this. */
const RULE_SETTLE_MS = 250;
/** The environment the plugin reads user-global rules through and writes its log under, pointed at empty folders while a host runs. */
const ISOLATED_ENV = [
  "HOME",
  "XDG_CONFIG_HOME",
  "OPENCODE_CONFIG_DIR",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "XDG_STATE_HOME",
  "OPENCODE_RULEBOOK_MANAGED_DIR",
] as const;

/** The built plugin, as OpenCode 2 loads it (`npm test` builds first), on OpenCode 2.0.26 with its terminal UI. */
export function simulatedOpenCode2(): HostDriver & PanelDriver {
  return driverOn(
    async () => (await import(pathToFileURL(join(REPO, "dist/index.js")).href)).default,
    () => import(pathToFileURL(join(REPO, "dist/tui.js")).href),
  );
}

/** The built plugin on another OpenCode 2 revision (`opencode-2-revisions.ts`); none before 2.0 has plugin RPC, so no Rules panel is drawn. */
export function simulatedOpenCode2At(revision: HostRevision): HostDriver & PanelDriver {
  return driverOn(
    async () => (await import(pathToFileURL(join(REPO, "dist/index.js")).href)).default,
    undefined,
    revision,
  );
}

/** The Rules panel as OpenCode 2's terminal UI draws it: the plugin's terminal UI module loaded by the simulated terminal UI. */
export interface PanelDriver {
  /** The plugin's sidebar block for the session, as drawn now (one line per text element; none while hidden). */
  panel(sessionID: string): string[];
  /** Where the plugin writes its log. */
  logFile(): string;
}

/** The same driver over a given default export (a test's inline plugin). */
export function simulatedOpenCode2WithPlugin(plugin: unknown): HostDriver {
  return driverOn(async () => plugin);
}

/** The model's reply for one scripted step. */
function replyFor(step: ModelStep | undefined): ModelReply {
  if (step === undefined) return { text: "ok" };
  if ("read" in step) return { toolCalls: [{ name: "read", input: { path: step.read } }] };
  if ("write" in step) return { toolCalls: [{ name: "write", input: { path: step.write, content: step.content } }] };
  if ("rule" in step) return { toolCalls: [{ name: "rule", input: { name: step.rule } }] };
  if ("edit" in step)
    return {
      toolCalls: [{ name: "edit", input: { path: step.edit, oldString: step.oldString, newString: step.newString } }],
    };
  if ("bash" in step) return { toolCalls: [{ name: "shell", input: { command: step.bash } }] };
  return { text: step.answer };
}

function partText(part: LlmContentPart): string | undefined {
  if (part.type === "text") return String(part.text);
  if (part.type === "tool-call") return `[tool-call ${String(part.name)} ${JSON.stringify(part.input)}]`;
  if (part.type !== "tool-result") return undefined;
  const result = part.result as { type: string; value: unknown };
  if (result.type === "content" && Array.isArray(result.value))
    return (result.value as Array<{ type: string; text?: string }>)
      .flatMap((item) => (item.type === "text" ? [item.text ?? ""] : []))
      .join("\n");
  return typeof result.value === "string" ? result.value : JSON.stringify(result.value);
}

function seenMessage(message: LlmMessage): SeenMessage {
  return { role: message.role, text: message.content.flatMap((part) => partText(part) ?? []).join("\n") };
}

/** A request in the host-neutral shape: the system parts as one system message, then the conversation. */
export function seenRequest(request: ModelRequest): SeenRequest {
  return {
    messages: [
      { role: "system", text: request.system.map((part) => part.text).join("\n") },
      ...request.messages.map(seenMessage),
    ],
  };
}

function driverOn(
  loadPlugin: () => Promise<unknown>,
  loadTui?: () => Promise<{ default?: unknown }>,
  revision: HostRevision = "2.0.26",
): HostDriver & PanelDriver {
  let host: SimulatedHost | undefined;
  let tui: SimulatedTui | undefined;
  let project = "";
  let isolation = "";
  let savedEnv: Partial<Record<(typeof ISOLATED_ENV)[number], string>> = {};
  const scripts = new Map<string, ModelStep[]>();

  const running = () => {
    if (!host) throw new Error("simulated OpenCode 2: start the driver first");
    return host;
  };

  function restoreEnv(): void {
    for (const name of ISOLATED_ENV) {
      if (savedEnv[name] === undefined) delete process.env[name];
      else process.env[name] = savedEnv[name];
    }
    savedEnv = {};
  }

  async function removeFolders(): Promise<void> {
    for (const folder of [project, isolation]) if (folder) await rm(folder, { recursive: true, force: true });
    project = "";
    isolation = "";
  }

  const driver: HostDriver & PanelDriver = {
    name: revision === "2.0.26" ? "simulated OpenCode 2" : `simulated OpenCode 2 (${revision})`,
    async start(setup: HostSetup) {
      // A git-less project in its own temp folder; the plugin's home and config folders are empty temp folders.
      project = await tempFolder("rulebook-oc2-project-");
      isolation = await tempFolder("rulebook-oc2-home-");
      await mkdir(join(project, ".opencode/rules"), { recursive: true });
      await writeTree(join(project, ".opencode/rules"), setup.projectRules);
      await writeTree(project, setup.projectFiles ?? {});
      const env = {
        HOME: join(isolation, "home"),
        XDG_CONFIG_HOME: join(isolation, "xdg-config"),
        OPENCODE_CONFIG_DIR: join(isolation, "opencode-config"),
        XDG_DATA_HOME: join(isolation, "xdg-data"),
        XDG_CACHE_HOME: join(isolation, "xdg-cache"),
        XDG_STATE_HOME: join(isolation, "xdg-state"),
        OPENCODE_RULEBOOK_MANAGED_DIR: join(isolation, "managed", "rules"),
      };
      for (const folder of Object.values(env)) await mkdir(folder, { recursive: true });
      await writeTree(join(env.OPENCODE_CONFIG_DIR, "rules"), setup.globalRules ?? {});
      await writeTree(env.OPENCODE_RULEBOOK_MANAGED_DIR, setup.managedRules ?? {});
      setup.prepare?.({ project, env });
      for (const name of ISOLATED_ENV) {
        savedEnv[name] = process.env[name];
        process.env[name] = env[name];
      }
      try {
        host = await startSimulatedHost({
          plugin: await loadPlugin(),
          options: setup.pluginOptions ?? {},
          directory: project,
          failing: setup.failingClient ?? false,
          revision,
          responder: (_request, sessionID) => replyFor(scripts.get(sessionID)?.shift()),
        });
        if (loadTui) tui = await startSimulatedTui(host, await loadTui());
      } catch (error) {
        restoreEnv();
        await removeFolders();
        throw error;
      }
    },
    async stop() {
      try {
        await tui?.stop();
        await host?.stop();
      } finally {
        tui = undefined;
        host = undefined;
        scripts.clear();
        restoreEnv();
        await removeFolders();
      }
    },
    async newSession() {
      return running().createSession({ agent: "build" });
    },
    async turn(sessionID, text, steps = [], as = {}) {
      const simulated = running();
      scripts.set(sessionID, [...steps]);
      const before = simulated.requests(sessionID).length;
      // OpenCode 2 keeps the agent picked on the session (`switchAgent`, as Tab does) for the prompts after it.
      simulated.switchAgent(sessionID, as.agent ?? "build");
      await simulated.prompt(sessionID, text);
      return simulated.requests(sessionID).slice(before).map(seenRequest);
    },
    async compactThenTurn(sessionID, text) {
      await running().compact(sessionID);
      return driver.turn(sessionID, text);
    },
    async writeRule(name, content) {
      await writeTree(join(project, ".opencode/rules"), { [name]: content });
      await new Promise((resolve) => setTimeout(resolve, RULE_SETTLE_MS));
    },
    projectPath(relative) {
      return join(project, relative);
    },
    async rulesPanel(sessionID) {
      return tui ? driver.panel(sessionID) : "no panel";
    },
    panel(sessionID) {
      if (!tui) throw new Error("simulated OpenCode 2: this driver has no terminal UI");
      if (tui.state.status !== "active")
        throw new Error(`simulated OpenCode 2: the terminal UI plugin failed: ${tui.state.error}`);
      return tui.sidebar(sessionID).flat();
    },
    logFile() {
      return join(isolation, "xdg-data", "opencode", "log", "opencode-rulebook.log");
    },
    pluginLog() {
      return existsSync(driver.logFile()) ? readFileSync(driver.logFile(), "utf8") : "";
    },
  };
  return driver;
}
