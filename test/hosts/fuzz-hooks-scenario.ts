/**
 * One scenario of the hook fuzz (fuzz-hooks.test.ts): a small simulated
 * OpenCode keeps each session's history as the model would see it (the
 * plugin's own prompts go through `chat.message` first, as in OpenCode;
 * compaction starts a new window), with a client that misbehaves as a seeded
 * random source says. `runScenario` runs the operations, heals the client,
 * sends every live session one more user message, and checks that nothing
 * hung, was lost or was duplicated.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { createLogger } from "../../src/log.js";
import { parseOptions } from "../../src/options.js";
import { deaf } from "../support/deaf-host.js";
import { startEngineWithClient as startRulebook, type TestEngine as Rulebook } from "../support/opencode-1-engine.js";
import { parseRulesMessage } from "../support/rules-message.js";
import { tempFolder } from "../support/temp-folder.js";
import { seededRandom } from "../support/seeded-random.js";

/** `deaf`: never answers and ignores its abort signal (a custom fetch, a wrapper); `hang` rejects once aborted. */
type Behaviour = "ok" | "error" | "throw" | "hang" | "stored-then-hang" | "deaf" | "stored-then-deaf" | "slow";
const BEHAVIOURS: Behaviour[] = [
  "ok",
  "ok",
  "ok",
  "error",
  "throw",
  "hang",
  "stored-then-hang",
  "deaf",
  "stored-then-deaf",
  "slow",
];

export type Op =
  | { kind: "create" }
  | { kind: "user"; session: number; keyword: boolean }
  | { kind: "tool"; session: number; file: number; undefinedOutput: boolean }
  | { kind: "compact"; session: number }
  | { kind: "delete"; session: number };

interface Part {
  type: string;
  text?: string;
  ignored?: boolean;
  synthetic?: boolean;
  metadata?: Record<string, unknown>;
  output?: string;
}
interface Message {
  info: {
    id: string;
    role: string;
    time: { created: number };
    agent?: string;
    model?: { providerID: string; modelID: string };
    summary?: boolean;
    parentID?: string;
    finish?: string;
  };
  parts: Part[];
}

const LIMITS = { reloadWaitMs: 20, historyTimeoutMs: 20, compactionWaitMs: 60, pathCheckMs: 20 };
const PROMPT_TIMEOUT_MS = 30;
const FIRST_MESSAGE_WAIT_MS = 30;
/** Far above any bound the hooks are given: reaching it means a hook hung. */
const DEADLINE_MS = 2_000;
export const FILES = ["src/app.ts", "src/db/user.sql", "docs/readme.md", `${"a".repeat(300)}.txt`];

export interface RuleSet {
  always: number;
  keyword: boolean;
  glob: boolean;
  broken: ReadonlyArray<string>;
}

export async function runScenario(rules: RuleSet, ops: Op[], seed: number): Promise<void> {
  const root = await tempFolder("rulebook-fuzz-");
  const project = join(root, "project");
  const alwaysNames = await writeRules(join(project, ".opencode", "rules"), rules);
  const random = seededRandom(seed);
  let healed = false;
  const behaviour = (): Behaviour =>
    healed ? "ok" : (BEHAVIOURS[Math.floor(random() * BEHAVIOURS.length)] as Behaviour);
  const history = new Map<string, Message[]>();
  const logs: string[] = [];
  const trail: string[] = [];
  // Dated as the host dates a message: its clock, which is the plugin's (one process), never going back.
  let clock = 0;
  const tick = () => (clock = Math.max(clock + 1, Date.now()));
  let ids = 0;
  // Filled below: the plugin's own prompt goes through its chat.message hook before it is stored, as in OpenCode.
  let rulebook: Rulebook | undefined;

  const store = (sessionID: string, message: Message) => {
    const messages = history.get(sessionID) ?? [];
    messages.push(message);
    messages.sort((a, b) => a.info.time.created - b.info.time.created);
    history.set(sessionID, messages);
  };
  const hang = (signal: AbortSignal | undefined) =>
    new Promise<never>((_, reject) =>
      signal?.addEventListener("abort", () => reject(signal.reason ?? new Error("aborted"))),
    );
  const client = {
    session: {
      async prompt({
        path,
        body,
        signal,
      }: {
        path: { id: string };
        body: { parts: Part[]; agent?: string };
        signal?: AbortSignal;
      }) {
        const how = behaviour();
        trail.push(`prompt ${path.id}: ${how}`);
        const storeIt = async () => {
          const info = {
            id: `msg_${++ids}`,
            sessionID: path.id,
            role: "user",
            time: { created: tick() },
            agent: body.agent ?? "build",
          };
          const parts = body.parts.map((part) => ({ ...part }));
          await rulebook?.onChatMessage({ sessionID: path.id }, { message: info as never, parts: parts as never });
          store(path.id, { info, parts });
          return { data: { info, parts }, error: undefined, response: { status: 200 } };
        };
        if (how === "ok") return storeIt();
        if (how === "slow") return new Promise((resolve) => setTimeout(() => resolve(storeIt()), 10));
        if (how === "error") return { data: undefined, error: { name: "UnknownError" }, response: { status: 500 } };
        if (how === "throw") throw new TypeError("fetch failed");
        if (how === "stored-then-hang" || how === "stored-then-deaf") await storeIt();
        return how === "deaf" || how === "stored-then-deaf" ? deaf() : hang(signal);
      },
      async messages({ path, signal }: { path: { id: string }; signal?: AbortSignal }) {
        const how = behaviour();
        trail.push(`messages ${path.id}: ${how}`);
        if (how === "error") return { data: undefined, error: { name: "UnknownError" }, response: { status: 500 } };
        if (how === "throw") throw new TypeError("fetch failed");
        if (how === "hang" || how === "stored-then-hang") return hang(signal);
        if (how === "deaf" || how === "stored-then-deaf") return deaf();
        return { data: structuredClone(history.get(path.id) ?? []), error: undefined, response: { status: 200 } };
      },
    },
  };

  try {
    rulebook = await startRulebook({
      client: client as never,
      directory: project,
      worktree: project,
      env: {},
      home: join(root, "home"),
      fs: nodeRuleFs,
      options: parseOptions({}, {}).options,
      log: createLogger(async (level, message) => void logs.push(`${level}: ${message}`), false),
      retry: { tries: 2, backoffMs: [5] },
      promptTimeoutMs: PROMPT_TIMEOUT_MS,
      firstMessageWaitMs: FIRST_MESSAGE_WAIT_MS,
      creationGraceMs: 5,
      limits: LIMITS,
    });
    const engine = rulebook;
    const sessions: string[] = [];
    const dead = new Set<string>();
    const background: Array<Promise<void>> = [];
    const awaited = async (what: string, work: Promise<void>) => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<"hung">((resolve) => (timer = setTimeout(() => resolve("hung"), DEADLINE_MS)));
      const outcome = await Promise.race([work.then(() => "done" as const), deadline]).finally(() =>
        clearTimeout(timer),
      );
      if (outcome === "hung") throw new Error(`${what} did not settle within ${DEADLINE_MS} ms\n${trail.join("\n")}`);
    };
    const userTurn = async (sessionID: string, text: string) => {
      const info = {
        id: `msg_${++ids}`,
        sessionID,
        role: "user" as const,
        time: { created: tick() },
        agent: "build",
        model: { providerID: "p", modelID: "m" },
      };
      const output = {
        message: info,
        parts: [{ id: `prt_${ids}`, sessionID, messageID: info.id, type: "text", text }] as never[],
      };
      await awaited(`chat.message of ${sessionID}`, engine.onChatMessage({ sessionID }, output as never));
      store(sessionID, { info, parts: output.parts as Part[] });
    };

    for (const step of ops) {
      const sessionID = step.kind === "create" ? undefined : sessions[step.session % Math.max(1, sessions.length)];
      trail.push(JSON.stringify(step));
      if (step.kind === "create") {
        const id = `ses_${sessions.length}`;
        sessions.push(id);
        history.set(id, []);
        background.push(engine.onEvent({ type: "session.created", properties: { info: { id, title: "t" } } } as never));
      } else if (!sessionID || dead.has(sessionID)) continue;
      else if (step.kind === "user") await userTurn(sessionID, step.keyword ? "please write a migration" : "next step");
      else if (step.kind === "tool") {
        const input = { tool: "read", sessionID, callID: `call_${++ids}`, args: { filePath: FILES[step.file] } };
        const output = {
          title: "read",
          output: (step.undefinedOutput ? undefined : "file text") as string,
          metadata: {},
        };
        await awaited(`tool.execute.before of ${sessionID}`, engine.onToolBefore(input, { args: input.args }));
        await awaited(`tool.execute.after of ${sessionID}`, engine.onToolAfter(input, output));
        store(sessionID, {
          info: { id: `msg_${++ids}`, role: "assistant", time: { created: tick() } },
          parts: [{ type: "tool", output: output.output }],
        });
      } else if (step.kind === "compact") {
        // As OpenCode 1.18: the compaction's message, the compacting hook, its summary, the autocontinue hook, then the event.
        const compaction = `msg_${++ids}`;
        store(sessionID, {
          info: { id: compaction, role: "user", time: { created: tick() } },
          parts: [{ type: "compaction" }],
        });
        await awaited(`compacting hook of ${sessionID}`, engine.onCompacting({ sessionID }));
        const summary = {
          id: `msg_${++ids}`,
          role: "assistant",
          time: { created: tick() },
          summary: true,
          parentID: compaction,
          finish: "stop",
        };
        store(sessionID, { info: summary, parts: [{ type: "text", text: "summary" }] });
        const hook = engine.onCompactionAutocontinue({
          sessionID,
          agent: "build",
          model: { id: "m", providerID: "p" },
          message: { id: compaction },
        });
        await awaited(`compaction of ${sessionID}`, hook);
        background.push(engine.onEvent({ type: "session.compacted", properties: { sessionID } } as never));
      } else if (step.kind === "delete") {
        dead.add(sessionID);
        background.push(engine.onEvent({ type: "session.deleted", properties: { info: { id: sessionID } } } as never));
      }
    }

    // The client heals; what was left for later must now arrive.
    healed = true;
    await awaited(
      "the events OpenCode does not await",
      Promise.all(background).then(() => undefined),
    );
    for (const sessionID of sessions) if (!dead.has(sessionID)) await userTurn(sessionID, "final turn");

    for (const sessionID of sessions) {
      if (dead.has(sessionID)) continue;
      const seen = rulesInWindow(history.get(sessionID) ?? []);
      const context = `session ${sessionID}, rules seen ${JSON.stringify(seen)}\n${trail.join("\n")}\nlog:\n${logs.join("\n")}`;
      for (const name of alwaysNames)
        expect(
          seen.filter((seenName) => seenName === name).length,
          `always-on rule ${name} lost in ${context}`,
        ).toBeGreaterThanOrEqual(1);
      const blind = logs.some((line) => line.includes(`Could not read the history of session ${sessionID} `));
      if (!blind) {
        const twice = [...new Set(seen.filter((name, i) => seen.indexOf(name) !== i))];
        expect(twice, `rules twice in one window of ${context}`).toEqual([]);
      }
    }
  } finally {
    rulebook?.dispose();
    await rm(root, { recursive: true, force: true });
  }
}

/** Rule names the model sees in the current window: text parts and tool results, ignored parts left out. */
function rulesInWindow(messages: Message[]): string[] {
  let start = 0;
  messages.forEach((message, i) => {
    if (message.parts.some((part) => part.type === "compaction")) start = i;
  });
  const names: string[] = [];
  for (const message of messages.slice(start)) {
    for (const part of message.parts) {
      if (part.ignored) continue;
      const text = part.type === "tool" ? part.output : part.text;
      if (typeof text === "string") names.push(...parseRulesMessage(text).map((rule) => rule.name));
    }
  }
  return names;
}

async function writeRules(folder: string, rules: RuleSet): Promise<string[]> {
  await mkdir(folder, { recursive: true });
  const always: string[] = [];
  for (let i = 0; i < rules.always; i++) {
    await writeFile(join(folder, `always-${i}.md`), `Always rule ${i}.\n`);
    always.push(`always-${i}`);
  }
  if (rules.keyword)
    await writeFile(join(folder, "migrations.md"), "---\nkeywords: [migration]\n---\nMigration checklist.\n");
  if (rules.glob) await writeFile(join(folder, "typescript.md"), '---\nglobs: "src/**/*.ts"\n---\nStrict types.\n');
  const broken: Record<string, string> = {
    "bad-yaml": "---\nglobs: [unclosed\n---\nBroken.\n",
    "empty-glob": "---\nglobs: ./\n---\nEmpty glob.\n",
    backtracking: '---\nglobs: "**/a*a*a*a*a*a*a*a*a*a*a*a*b"\n---\nBacktracking.\n',
    delimiter: "---\ndescription: x\n---x: 1\nalwaysApply: false\n---\nDelimiter trick.\n",
  };
  for (const name of rules.broken) await writeFile(join(folder, `broken-${name}.md`), broken[name] as string);
  return always;
}
