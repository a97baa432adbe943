/**
 * The `HostDriver` for OpenCode 1: the plugin in the real `opencode serve`
 * (the pinned binary), driven through the e2e harness (`test/e2e/harness/`)
 * against the fake model, whose recorded requests are what the model saw.
 *
 * - A turn queues the model's steps on the fake model, sends the prompt, and
 *   waits until the session is idle and the model gave its final answer; it
 *   returns the session's main requests of that turn (title and summary
 *   requests left out), flattened to `SeenRequest`.
 * - A new session is handed out once the plugin's silent rules message is
 *   stored (or, when none comes, once it had the time to), as a user would
 *   type: so a first turn does not race the silent delivery.
 * - `failingClient`: a wrapper plugin in the project loads the real plugin and
 *   gives it a client that throws on every use (as `test/e2e/faults.test.ts`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  contentText,
  isMainRequest,
  type ChatMessage,
  type RecordedRequest,
  type Reply,
} from "../e2e/harness/fake-model.js";
import { hostEnvironment, startOpencode, type OpencodeInstance, type PreparedDirs } from "../e2e/harness/opencode.js";
import { isRulesPart, PLUGIN_UNDER_TEST } from "../e2e/harness/rules.js";
import {
  assistantMessages,
  createSession,
  getMessages,
  isIdle,
  prompt,
  sleep,
  unwrap,
  waitFor,
  type SessionMessage,
} from "../e2e/harness/wait.js";
import type { HostDriver, HostSetup, ModelStep, SeenMessage, SeenRequest, TurnAs } from "./scenario-driver.js";
import { currentWindow, type HistoryMessage, rulesIn } from "../../src/hosts/opencode-1/history.js";
import { panelLines } from "../../src/panel/panel-lines.js";
import { rulesPanel } from "../../src/panel/rules-panel.js";

const MODEL = { providerID: "fake", modelID: "fake-model" };

/** The plugin's file watcher needs a moment after a rule file changes (as `test/e2e/hot-reload.test.ts`). */
const WATCHER_SETTLE_MS = 250;
/** How long a new session is given for its silent rules message (the plugin waits 300 ms, then stores it in milliseconds). */
const SILENT_DELIVERY_WAIT_MS = 2_000;
/** How long a compacted session is given for the plugin's re-delivery (none comes when no rule is active). */
const REDELIVERY_WAIT_MS = 3_000;
/** After a delivery shows in the history, for the plugin to have taken in that it was stored. */
const AFTER_DELIVERY_MS = 200;
/** With a throwing client nothing can be stored: time for the plugin's attempt (and its events) to have happened. */
const FAILING_CLIENT_SETTLE_MS = 600;
/** One turn, compaction included. */
const TURN_TIMEOUT_MS = 30_000;

/** The wrapper plugin of `failingClient`, relative to the project (where `opencode.json` is). */
const WRAPPER_FILE = ".opencode/rulebook-throwing-client.mjs";

export function realOpenCode1(): HostDriver {
  let oc: OpencodeInstance | undefined;
  let failingClient = false;
  let managedDir = "";

  const instance = (): OpencodeInstance => {
    if (!oc) throw new Error("realOpenCode1: start() first");
    return oc;
  };

  const projectPath = (relative: string): string => path.resolve(instance().projectDir, relative);
  const absolute = (file: string): string => (path.isAbsolute(file) ? file : projectPath(file));

  function replyFor(step: ModelStep): Reply {
    if ("read" in step) return { toolCalls: [{ name: "read", arguments: { filePath: absolute(step.read) } }] };
    if ("write" in step)
      return { toolCalls: [{ name: "write", arguments: { filePath: absolute(step.write), content: step.content } }] };
    if ("rule" in step) return { toolCalls: [{ name: "rule", arguments: { name: step.rule } }] };
    if ("edit" in step)
      return {
        toolCalls: [
          {
            name: "edit",
            arguments: { filePath: absolute(step.edit), oldString: step.oldString, newString: step.newString },
          },
        ],
      };
    if ("bash" in step)
      return { toolCalls: [{ name: "bash", arguments: { command: step.bash, description: "Runs the command" } }] };
    return step.answer;
  }

  /** Waits until `sessionID` holds a visible rules part after its last compaction (or anywhere, without one); false when none came in time. */
  async function waitForRulesPart(sessionID: string, afterCompaction: boolean, timeoutMs: number): Promise<boolean> {
    try {
      await waitFor(
        async () => visibleRulesPartsSince(await getMessages(instance().client, sessionID), afterCompaction) > 0,
        {
          message: `rules stored in ${sessionID}`,
          timeoutMs,
        },
      );
      await sleep(AFTER_DELIVERY_MS);
      return true;
    } catch {
      return false;
    }
  }

  async function turn(
    sessionID: string,
    text: string,
    steps: ModelStep[] = [],
    as: TurnAs = {},
  ): Promise<SeenRequest[]> {
    const { client, fakeModel } = instance();
    // Replies left over from an earlier turn (one that ended early) must not answer this one.
    fakeModel.queue.length = 0;
    fakeModel.enqueue(...(steps.length > 0 ? steps.map(replyFor) : ["ok"]));
    const since = fakeModel.requests.at(-1)?.seq ?? 0;
    const ours = () => fakeModel.requests.filter((r) => r.seq > since && r.sessionID === sessionID && isMainRequest(r));
    // A prompt without an agent is the default agent's: OpenCode 1 takes the agent from each prompt.
    await prompt(client, sessionID, text, as.agent ? { agent: as.agent } : {});
    await waitFor(
      async () => {
        // Over once the model's last request was answered without a tool call, and OpenCode stored it and went idle.
        const last = ours().at(-1);
        if (!last?.reply || (last.reply.toolCalls?.length ?? 0) > 0) return false;
        if (!(await isIdle(client, sessionID))) return false;
        const answer = assistantMessages(await getMessages(client, sessionID)).at(-1);
        return answer !== undefined && answer.info.role === "assistant" && answer.info.time.completed !== undefined;
      },
      { message: `turn of ${sessionID} over`, timeoutMs: TURN_TIMEOUT_MS },
    );
    return ours().map(seenRequest);
  }

  return {
    name: "OpenCode 1 (real opencode serve)",

    async start(setup: HostSetup) {
      if (oc) throw new Error("realOpenCode1: already started");
      failingClient = setup.failingClient === true;
      // The managed folder lives apart from the instance's temp root: its path is in the server's environment from the start.
      managedDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "rulebook-managed-")));
      const managedRules = path.join(managedDir, "rules");
      fs.mkdirSync(managedRules);
      for (const [name, text] of Object.entries(setup.managedRules ?? {}))
        fs.writeFileSync(path.join(managedRules, name), text);
      const env = { OPENCODE_RULEBOOK_MANAGED_DIR: managedRules };
      const prepare = (dirs: PreparedDirs) =>
        setup.prepare?.({
          project: dirs.projectDir,
          env: { ...hostEnvironment(dirs.homeDir), ...env } as Record<string, string>,
        });
      if (!failingClient) {
        oc = await startOpencode({
          pluginPath: PLUGIN_UNDER_TEST,
          pluginOptions: setup.pluginOptions,
          projectRules: setup.projectRules,
          projectFiles: setup.projectFiles,
          globalRules: setup.globalRules,
          env,
          prepare,
        });
        return;
      }
      const plugin = PLUGIN_UNDER_TEST.startsWith("file:") ? PLUGIN_UNDER_TEST : pathToFileURL(PLUGIN_UNDER_TEST).href;
      const wrapper = `./${WRAPPER_FILE}`;
      oc = await startOpencode({
        projectRules: setup.projectRules,
        globalRules: setup.globalRules,
        projectFiles: { ...setup.projectFiles, [WRAPPER_FILE]: throwingClientWrapper(plugin) },
        config: { plugin: [setup.pluginOptions ? [wrapper, setup.pluginOptions] : wrapper] },
      });
    },

    async stop() {
      const running = oc;
      oc = undefined;
      await running?.stop();
      if (managedDir) fs.rmSync(managedDir, { recursive: true, force: true });
      managedDir = "";
    },

    async newSession() {
      const { id } = await createSession(instance().client);
      if (failingClient) await sleep(FAILING_CLIENT_SETTLE_MS);
      else await waitForRulesPart(id, false, SILENT_DELIVERY_WAIT_MS);
      return id;
    },

    turn,

    async compactThenTurn(sessionID: string, text: string) {
      const { client } = instance();
      unwrap(await client.session.summarize({ path: { id: sessionID }, body: MODEL }), "session.summarize");
      await waitFor(
        async () => {
          if (!(await isIdle(client, sessionID))) return false;
          const messages = await getMessages(client, sessionID);
          const at = lastCompactionIndex(messages);
          return (
            at >= 0 &&
            messages
              .slice(at)
              .some(
                (m) => m.info.role === "assistant" && m.info.summary === true && m.info.time.completed !== undefined,
              )
          );
        },
        { message: `compaction of ${sessionID} over`, timeoutMs: TURN_TIMEOUT_MS },
      );
      // The plugin re-delivers on `session.compacted`, after the summary: a turn sent before would race it.
      if (failingClient) await sleep(FAILING_CLIENT_SETTLE_MS);
      else await waitForRulesPart(sessionID, true, REDELIVERY_WAIT_MS);
      return turn(sessionID, text);
    },

    async rulesPanel(sessionID: string) {
      // What OpenCode 1's terminal UI draws from the same messages (src/hosts/opencode-1/tui-panel.ts), at the sidebar's width.
      const history = (await getMessages(instance().client, sessionID)) as unknown as HistoryMessage[];
      const markers = rulesIn(currentWindow(history).messages, { results: true }).map(({ marker }) => marker);
      return panelLines(rulesPanel(markers), 37).map((line) => line.text);
    },

    async writeRule(name: string, content: string) {
      const file = path.join(instance().projectRulesDir, name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
      await sleep(WATCHER_SETTLE_MS);
    },

    projectPath,
    pluginLog: () => instance().logs(),
  };
}

/** Index of the session's last message holding a compaction part; -1 when none. */
function lastCompactionIndex(messages: SessionMessage[]): number {
  return messages.findLastIndex((m) => m.parts.some((p) => p.type === "compaction"));
}

/** Visible rules parts stored (after the last compaction, when asked and there is one). */
function visibleRulesPartsSince(messages: SessionMessage[], afterCompaction: boolean): number {
  const from = afterCompaction ? lastCompactionIndex(messages) : 0;
  if (from < 0) return 0;
  return messages
    .slice(from)
    .flatMap((m) => m.parts)
    .filter((p) => isRulesPart(p) && !(p as { ignored?: boolean }).ignored).length;
}

/** A recorded chat-completions request in the host-neutral shape: system messages first, every message's content as text. */
export function seenRequest(request: RecordedRequest): SeenRequest {
  const messages = request.body.messages.map(seenMessage);
  return { messages: [...messages.filter((m) => m.role === "system"), ...messages.filter((m) => m.role !== "system")] };
}

function seenMessage(message: ChatMessage): SeenMessage {
  const text = contentText(message.content);
  switch (message.role) {
    case "system":
    case "developer":
      return { role: "system", text };
    case "assistant": {
      const calls = (message.tool_calls ?? []).map(
        (call) => `[tool-call ${call.function.name} ${canonicalJson(call.function.arguments)}]`,
      );
      return { role: "assistant", text: [text, ...calls].filter((piece) => piece !== "").join("\n") };
    }
    case "tool":
      return { role: "tool", text };
    default:
      return { role: "user", text };
  }
}

/** Tool-call arguments as compact JSON (as OpenCode sent them when they are not JSON). */
function canonicalJson(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args));
  } catch {
    return args;
  }
}

/**
 * A plugin module that loads the real plugin and hands it a client throwing
 * on every use. The real entry is either a default export `{ id, setup,
 * server }` (OpenCode 1's plugin function as `server`) or, as built today, a
 * module whose first function export is that plugin.
 */
function throwingClientWrapper(pluginUrl: string): string {
  return `import * as mod from ${JSON.stringify(pluginUrl)};
const server = typeof mod.default?.server === "function" ? mod.default.server : Object.values(mod).find((value) => typeof value === "function");
if (typeof server !== "function") throw new Error("opencode-rulebook: no OpenCode 1 plugin function in " + ${JSON.stringify(pluginUrl)});
const exploding = new Proxy({}, { get() { throw new Error("dependency exploded"); } });
export const ThrowingClient = (input, options) => server({ ...input, client: exploding }, options);
`;
}
