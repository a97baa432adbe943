/**
 * Helpers for the delivery e2e tests: the always-on rule fixtures, counting
 * the plugin's rules in what the model saw (recorded requests) and in what
 * OpenCode stored (session messages), and restarting OpenCode on the same
 * project/home/data folders.
 *
 * A rules message starts with `<rulebook>` and holds one `<rule name="…" …>`
 * block per rule (src/render/message.ts); the plugin marks its parts with
 * `metadata["opencode-rulebook"]` (src/hosts/opencode-1/parts.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk";
import {
  contentParts,
  contentText,
  isMainRequest,
  isOpencodeReminder,
  lastUserText,
  requestText,
  toolResults,
  type RecordedRequest,
  type Reply,
} from "./fake-model.js";
import { DIST_PLUGIN, type OpencodeInstance } from "./opencode.js";
import { spawnServer } from "./server.js";
import { getMessages, waitFor, type SessionMessage } from "./wait.js";

/** The plugin the delivery tests load: the build, or (to show a test fails when delivery breaks) a patched copy named by RULEBOOK_E2E_PLUGIN. */
export const PLUGIN_UNDER_TEST = process.env.RULEBOOK_E2E_PLUGIN ?? DIST_PLUGIN;

/** The always-on rules every delivery test installs: one global, one project. */
export const GLOBAL_RULE = { name: "house-global", mark: "MARK-GLOBAL-ALWAYS-91c" } as const;
export const PROJECT_RULE = { name: "project-style", mark: "MARK-PROJECT-ALWAYS-4be" } as const;
export const ALWAYS_RULES = [GLOBAL_RULE, PROJECT_RULE] as const;

/** A rule file with its own front matter (`agents: [plan]`, `models: ["fake/*"]`…): a heading and one bullet. */
export const scopedRule = (frontMatter: string, title: string, line: string) =>
  `---\n${frontMatter}\n---\n# ${title}\n- ${line}\n`;

/** An always-on rule file: a heading and one bullet. */
export const alwaysRule = (title: string, line: string) => scopedRule("alwaysApply: true", title, line);

/** `globalRules` / `projectRules` for startOpencode. */
export function alwaysRuleFiles(): { globalRules: Record<string, string>; projectRules: Record<string, string> } {
  return {
    globalRules: { [`${GLOBAL_RULE.name}.md`]: alwaysRule("House", `${GLOBAL_RULE.mark}: answer briefly.`) },
    projectRules: { [`${PROJECT_RULE.name}.md`]: alwaysRule("Style", `${PROJECT_RULE.mark}: two-space indent.`) },
  };
}

/** The prompt a parent's `DELEGATE-<n>` turn gives its subagent, and the subagent's answer. */
export const childPrompt = (n: string | number) => `Please do CHILD-PROMPT-${n} now.`;
export const childAnswer = (n: string | number) => `CHILD-ANSWER-${n}`;

/**
 * A fake-model responder that answers what the model was actually asked, so a
 * request whose last user message is not the user's shows in the answer:
 * - a request carrying a task result → "PARENT-DONE";
 * - last user text with `CHILD-PROMPT-<n>` (a subagent) → `CHILD-ANSWER-<n>`;
 * - last user text with `DELEGATE-<n>` → a `task` call (general subagent) with childPrompt(n);
 * - last user text with `USER-FIRST-<n>` → `ANSWER-<n>`; anything else → "ANSWER-none".
 * Title and summary requests fall through to the fake model's defaults.
 */
export function delegatingResponder(r: RecordedRequest): Reply | undefined {
  if (!isMainRequest(r)) return undefined;
  const last = lastUserText(r);
  if (toolResults(r).some((t) => t.text.includes("task_result"))) return "PARENT-DONE";
  const child = /CHILD-PROMPT-(\d+)/.exec(last);
  if (child) return childAnswer(child[1]!);
  const delegate = /DELEGATE-(\d+)/.exec(last);
  if (delegate) {
    return {
      toolCalls: [
        {
          name: "task",
          arguments: {
            description: `sub job ${delegate[1]}`,
            prompt: childPrompt(delegate[1]!),
            subagent_type: "general",
          },
        },
      ],
    };
  }
  const user = /USER-FIRST-(\d+)/.exec(last);
  return user ? `ANSWER-${user[1]}` : "ANSWER-none";
}

export const MARKER_KEY = "opencode-rulebook";

export function countOf(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** How often each always-on rule is in a request (by its `<rule name="…"` block and by its text). */
export function ruleCounts(request: RecordedRequest): Record<string, { blocks: number; texts: number }> {
  const text = requestText(request);
  const out: Record<string, { blocks: number; texts: number }> = {};
  for (const rule of ALWAYS_RULES)
    out[rule.name] = { blocks: countOf(text, `<rule name="${rule.name}"`), texts: countOf(text, rule.mark) };
  return out;
}

/** Expected value of ruleCounts when every always-on rule is there exactly once. */
export const EACH_ONCE: Record<string, { blocks: number; texts: number }> = Object.fromEntries(
  ALWAYS_RULES.map((rule) => [rule.name, { blocks: 1, texts: 1 }]),
);
export const NONE: Record<string, { blocks: number; texts: number }> = Object.fromEntries(
  ALWAYS_RULES.map((rule) => [rule.name, { blocks: 0, texts: 0 }]),
);

/** The last message of a request and its text. */
export function lastMessage(request: RecordedRequest): { role: string; text: string } {
  const last = request.body.messages.at(-1);
  return { role: last?.role ?? "", text: contentText(last?.content) };
}

/** How often a rule is in a request: the count of its blocks (`<rule name="…"`), or both counts in words when its text is not there as often. */
export function timesIn(request: RecordedRequest, rule: { name: string; mark: string }): number | string {
  const text = requestText(request);
  const blocks = countOf(text, `<rule name="${rule.name}"`);
  const texts = countOf(text, rule.mark);
  return blocks === texts ? blocks : `${blocks} blocks, ${texts} texts`;
}

/** A text part of a request's message, by who wrote it: the plugin's rules message, OpenCode's own reminder (isOpencodeReminder), or anything else (the user's words). */
export interface KindOfPart {
  kind: "rules" | "opencode-reminder" | "text";
  text: string;
}

/** The text parts of one message's content, in order, each with its kind. */
export function partsByKind(content: unknown): KindOfPart[] {
  return contentParts(content).map((text) => ({
    kind: text.trimStart().startsWith("<rulebook>") ? "rules" : isOpencodeReminder(text) ? "opencode-reminder" : "text",
    text,
  }));
}

/** The text parts of a request's last message, in order, each with its kind. */
export function lastMessageParts(request: RecordedRequest): KindOfPart[] {
  return partsByKind(request.body.messages.at(-1)?.content);
}

type StoredPart = SessionMessage["parts"][number] & {
  synthetic?: boolean;
  ignored?: boolean;
  metadata?: Record<string, unknown>;
  text?: string;
};

/** Whether a stored part is one of the plugin's rules parts. */
export function isRulesPart(part: SessionMessage["parts"][number]): boolean {
  const p = part as StoredPart;
  return (
    p.type === "text" && (p.metadata?.[MARKER_KEY] !== undefined || (p.text ?? "").trimStart().startsWith("<rulebook>"))
  );
}

export interface FlatPart {
  messageIndex: number;
  role: string;
  agent?: string;
  part: StoredPart;
}

/** Every stored part of a session in the order OpenCode gives them to the model (messages by time, parts by id). */
export function flatParts(messages: SessionMessage[]): FlatPart[] {
  return messages.flatMap((m, messageIndex) =>
    m.parts.map((part) => ({
      messageIndex,
      role: m.info.role,
      agent: (m.info as { agent?: string }).agent,
      part: part as StoredPart,
    })),
  );
}

/** Rules parts the model can see (not `ignored`), in order. */
export function visibleRulesParts(messages: SessionMessage[]): FlatPart[] {
  return flatParts(messages).filter((p) => isRulesPart(p.part) && !p.part.ignored);
}

/** Index (in flatParts order) of the first text part holding `text` that is not the plugin's. */
export function indexOfUserText(messages: SessionMessage[], text: string): number {
  return flatParts(messages).findIndex(
    (p) => p.role === "user" && p.part.type === "text" && !isRulesPart(p.part) && (p.part.text ?? "").includes(text),
  );
}

/** The visible rules parts from the session's last compaction on (-1 when it had none). */
export function rulesAfterLastCompaction(messages: SessionMessage[]): number {
  const at = messages.findLastIndex((message) => message.parts.some((part) => part.type === "compaction"));
  if (at < 0) return -1;
  return visibleRulesParts(messages.slice(at)).length;
}

/** Waits until the session holds a rules part; returns its messages. */
export async function waitForRulesStored(
  client: OpencodeClient,
  sessionID: string,
  timeoutMs = 10_000,
): Promise<SessionMessage[]> {
  return waitFor(
    async () => {
      const messages = await getMessages(client, sessionID);
      return visibleRulesParts(messages).length > 0 ? messages : undefined;
    },
    { message: `rules stored in ${sessionID}`, timeoutMs },
  );
}

export interface RestartedOpencode {
  url: string;
  client: OpencodeClient;
  logs(): string;
  stop(): Promise<void>;
}

/**
 * Starts `opencode serve` again on the folders of a stopped instance (same
 * project, HOME, XDG dirs, so the same database, config and rules). Start the
 * first instance with `keepTmp: true` and a `fakeModel` of the test's own so
 * that stopping it keeps both; remove `rootDir` yourself at the end.
 */
export async function restartOpencode(previous: OpencodeInstance, timeoutMs = 30_000): Promise<RestartedOpencode> {
  // The watchdog deletes nothing: the caller owns (and removes) rootDir.
  const server = await spawnServer({
    cwd: previous.projectDir,
    env: previous.env,
    watchdogRoot: "",
    timeoutMs,
    name: "restarted opencode",
  });
  return {
    url: server.url,
    client: createOpencodeClient({ baseUrl: server.url, directory: previous.projectDir }),
    logs: server.logs,
    stop: server.stop,
  };
}

/** The rule files (`.md`, `.mdc`) under a folder, by path relative to it: a folder such as rules-examples/ as a project's rules. */
export function ruleFilesIn(dir: string, prefix = ""): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) Object.assign(files, ruleFilesIn(path.join(dir, entry.name), rel));
    else if (/\.mdc?$/i.test(entry.name)) files[rel] = fs.readFileSync(path.join(dir, entry.name), "utf8");
  }
  return files;
}
