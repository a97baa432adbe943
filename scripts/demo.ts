/**
 * `npm run demo`: opencode-rulebook inside the real OpenCode, offline, no API key.
 *
 * Builds (the npm script does), then starts the pinned `opencode serve` in a
 * temporary git project whose `.opencode/rules/` holds a copy of
 * `rules-examples/` (plus one global rule written by the demo into the
 * temporary global rules folder), with a fake OpenAI-compatible model that
 * follows a short script and records every request it receives. The
 * timeline printed to stdout shows what the plugin delivered, when, and which
 * model request contained what. Every claim printed with "✔" is checked; a
 * failed check stops the demo with exit code 1.
 *
 * Reuses the e2e harness (test/e2e/harness): the same isolation (temporary
 * HOME and XDG folders, offline environment) and the same cleanup (the server
 * is killed by pid, also on failure or Ctrl-C).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  contentText,
  isMainRequest,
  isSummaryRequest,
  isTitleRequest,
  type ChatMessage,
  type RecordedRequest,
} from "../test/e2e/harness/fake-model.js";
import { DIST_PLUGIN, hostEnvironment, startOpencode, type OpencodeInstance } from "../test/e2e/harness/opencode.js";
import { ruleFilesIn } from "../test/e2e/harness/rules.js";
import {
  createSession,
  getMessages,
  prompt,
  sleep,
  unwrap,
  waitFor,
  waitForIdle,
  type SessionMessage,
} from "../test/e2e/harness/wait.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const EXAMPLES = path.join(REPO, "rules-examples");
const MARKER_KEY = "opencode-rulebook";
const DEMO_TIMEOUT_MS = 60_000;

const t0 = Date.now();
const since = (t: number) => `+${((t - t0) / 1000).toFixed(2).padStart(5)}s`;
const out = (line = "") => process.stdout.write(`${line}\n`);
const at = (t: number, line: string) => out(`[${since(t)}] ${line}`);
const now = (line: string) => at(Date.now(), line);
const detail = (line: string) => out(`            ${line}`);
const section = (title: string) => {
  out();
  out(`── ${title} ${"─".repeat(Math.max(3, 72 - title.length))}`);
};

class DemoFailure extends Error {}
let checks = 0;
/** The OpenCode instance running now, for the signal handler. */
let running: OpencodeInstance | undefined;
function check(ok: unknown, claim: string, evidence?: string): void {
  if (!ok) throw new DemoFailure(`${claim}${evidence ? `\n  evidence: ${evidence}` : ""}`);
  checks++;
  detail(`✔ ${claim}`);
}

/** Names of the rules in a rules text (`<rule name="…"`). */
function ruleNames(text: string): string[] {
  return [...text.matchAll(/^<rule name="([^"]+)"/gm)].map((m) => m[1]!);
}

const list = (names: string[]) => (names.length ? names.join(", ") : "(none)");
const quote = (text: string, max = 60) => {
  const one = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(one.length > max ? `${one.slice(0, max - 1)}…` : one);
};
const kb = (text: string) => `${(Buffer.byteLength(text, "utf8") / 1024).toFixed(1)} KiB`;

/** Text pieces of one chat message (content parts, or the string). */
function pieces(m: ChatMessage): string[] {
  if (typeof m.content === "string") return [m.content];
  if (Array.isArray(m.content)) return m.content.map((p) => contentText([p])).filter((s) => s !== "");
  return [];
}

/** One line per message of a model request: role and what it carried. */
function describeRequest(r: RecordedRequest): string[] {
  return r.body.messages.map((m, i) => {
    const n = String(i + 1).padStart(2);
    const texts = pieces(m);
    if (m.role === "system") return `${n} system     OpenCode's system prompt (${kb(texts.join("\n"))})`;
    const shown = texts.map((t) => (t.includes("<rulebook>") ? `RULES [${list(ruleNames(t))}]` : quote(t)));
    if (m.role === "tool") {
      const t = texts.join("\n");
      const [result, rules] = t.includes("<rulebook>")
        ? [t.slice(0, t.indexOf("<rulebook>")), t.slice(t.indexOf("<rulebook>"))]
        : [t, ""];
      if (!result.trim()) return `${n} tool       result: RULES [${list(ruleNames(rules))}]`;
      return `${n} tool       result ${quote(result, 40)}${rules ? ` + RULES appended [${list(ruleNames(rules))}]` : ""}`;
    }
    if (m.role === "assistant") {
      const calls = (m.tool_calls ?? []).map((c) => `calls ${c.function.name}(${c.function.arguments})`);
      return `${n} assistant  ${[...shown, ...calls].join(" + ") || "(empty)"}`;
    }
    return `${n} ${m.role.padEnd(10)} ${shown.join(" + ")}`;
  });
}

function printRequest(r: RecordedRequest, why: string): void {
  at(r.time, `model request #${r.seq} (${why}), ${r.body.messages.length} messages:`);
  for (const line of describeRequest(r)) detail(line);
  const answer = r.reply?.toolCalls?.length
    ? `calls ${r.reply.toolCalls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(", ")}`
    : quote(r.reply?.text ?? "");
  detail(`→ fake model answers: ${answer}`);
}

/** Index of the first message / the message holding `needle`. */
const indexOf = (r: RecordedRequest, pred: (text: string) => boolean) =>
  r.body.messages.findIndex((m) => pred(pieces(m).join("\n")));
/** How many times each rule appears in a whole request. */
function ruleCounts(r: RecordedRequest): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of r.body.messages)
    for (const name of ruleNames(pieces(m).join("\n"))) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

/** The plugin's rules parts in a session's stored messages. */
function rulesParts(msgs: SessionMessage[]) {
  return msgs.flatMap((m, index) =>
    m.parts
      .filter((p) => p.type === "text" && (p as { metadata?: Record<string, unknown> }).metadata?.[MARKER_KEY])
      .map((p) => {
        const part = p as {
          text: string;
          synthetic?: boolean;
          metadata: Record<string, { rules: string[]; trigger: string }>;
        };
        return { index, message: m, part, marker: part.metadata[MARKER_KEY]! };
      }),
  );
}

async function main(): Promise<void> {
  out("opencode-rulebook demo: the real OpenCode, a scripted fake model, the rules in rules-examples/.");
  out("Times are seconds since the demo started. Nothing leaves this machine; no API key is used.");

  if (!fs.existsSync(DIST_PLUGIN))
    throw new DemoFailure(
      `the plugin is not built (${DIST_PLUGIN} is missing): run \`npm run build\` first, or use \`npm run demo\``,
    );
  const projectRules = ruleFilesIn(EXAMPLES);
  const globalRules = {
    "demo-global.md": [
      "---",
      "description: A personal rule in the user's global rules folder, written there by the demo",
      "---",
      "",
      "# Personal preferences (global rule, written by the demo)",
      "",
      "- Keep answers short; show commands before explanations.",
      "",
    ].join("\n"),
  };

  section("Setup");
  let oc: OpencodeInstance | undefined;
  try {
    oc = await startOpencode({
      pluginPath: DIST_PLUGIN,
      projectRules,
      globalRules,
      projectFiles: {
        "README.md": "# shop\n\nA tiny demo project.\n",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a TypeScript file the demo writes, template literal included
        "src/app.ts": "export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n",
      },
      fakeModelOptions: {
        titleReply: "Demo session",
        summaryReply: "Summary: we looked at src/app.ts and planned a users-table migration.",
      },
    });
    running = oc;
    const { client, fakeModel: model, projectDir } = oc;
    now(`OpenCode ${oc.url} started (pid ${oc.pid}) in a temporary project: ${projectDir}`);
    detail(
      `project rules (.opencode/rules/, copied from rules-examples/): ${Object.keys(projectRules).sort().join(", ")}`,
    );
    detail(
      `global rule (written by the demo into the temporary global folder ~/.config/opencode/rules/): demo-global.md`,
    );
    detail(`fake model: ${model.url} (OpenAI-compatible, scripted, records every request)`);

    // ── 1. The silent rules message ────────────────────────────────────────
    section("1. A new session gets the rules silently");
    const session = await createSession(client);
    const created = Date.now();
    at(created, `session ${session.id} created`);
    const first = await waitFor(async () => rulesParts(await getMessages(client, session.id))[0], {
      timeoutMs: 10_000,
      message: "the silent rules message",
    });
    const firstTime = first.message.info.time.created;
    at(
      firstTime,
      `plugin stored its rules message (${first.part.text.length} chars, ${kb(first.part.text)}), trigger: ${first.marker.trigger}`,
    );
    detail(`rules in it: ${list(first.marker.rules)}`);
    const onRequestList = first.part.text.match(/Rules to read on request[^\n]*\n((?:- .*\n?)*)/)?.[1]?.trim();
    if (onRequestList)
      detail(
        `listed by name and description, for the model to read on request: ${onRequestList.replace(/^- /gm, "").replace(/\n/g, "; ")}`,
      );
    check(
      first.part.synthetic === true,
      "the part is synthetic: hidden in the terminal UI, not counted as a user turn",
    );
    check(
      first.marker.rules.includes("style-guide") && first.marker.rules.includes("demo-global"),
      "always-on rules of both scopes are in it (project style-guide, global demo-global)",
      list(first.marker.rules),
    );
    check(
      !first.marker.rules.includes("typescript") && !first.marker.rules.includes("database/migrations"),
      "conditional rules (typescript, database/migrations) are not, yet",
    );
    await sleep(300);
    const roles = (await getMessages(client, session.id)).map((m) => m.info.role);
    check(
      model.requests.length === 0 && !roles.includes("assistant"),
      "it caused no model request and no assistant reply",
      `${model.requests.length} requests; stored messages: ${roles.join(", ")}`,
    );

    // ── 2. Prompt 1: the rules come before the user's words ────────────────
    section("2. Prompt 1: the model reads the rules first");
    model.enqueue("It is a tiny TypeScript project: src/app.ts exports greet().");
    const p1 = "What does this project do?";
    now(`user: ${quote(p1)}`);
    let mark = model.requests.length;
    await prompt(client, session.id, p1);
    const turn1 = model.requests.slice(mark).filter(isMainRequest);
    for (const r of turn1) printRequest(r, "answering prompt 1");
    check(turn1.length === 1, "one model request for the turn", `${turn1.length} requests`);
    const r1 = turn1[0]!;
    const rulesAt = indexOf(r1, (t) => t.includes("<rulebook>"));
    const userAt = indexOf(r1, (t) => t.includes(p1));
    check(
      rulesAt >= 0 && userAt > rulesAt,
      `the rules (message ${rulesAt + 1}) come before the user's text (message ${userAt + 1})`,
    );

    // ── 3. Prompt 2: keyword, file and on-request rules, in the same turn ──
    section("3. Prompt 2: rules that activate mid-session");
    const appTs = path.join(projectDir, "src", "app.ts");
    model.enqueue(
      { text: "Let me look at the code first.", toolCalls: [{ name: "read", arguments: { filePath: appTs } }] },
      {
        text: "Users' e-mail addresses are personal data: checking the security rule.",
        toolCalls: [{ name: "rule", arguments: { name: "security" } }],
      },
      "Plan: one migration creating `users` with a down step; queries run as app_ro; e-mails are redacted in logs.",
    );
    const p2 = "Please add a migration that creates a users table with e-mail addresses.";
    now(`user: ${quote(p2, 80)}`);
    mark = model.requests.length;
    await prompt(client, session.id, p2);
    const turn2 = model.requests.slice(mark).filter(isMainRequest);
    const [a, b, c] = turn2;
    if (a) printRequest(a, "answering prompt 2");
    check(
      turn2.length === 3,
      "three model requests for the turn (prompt, read result, rule result): no extra turn",
      `${turn2.length} requests`,
    );
    const lastUser = [...a!.body.messages].reverse().find((m) => m.role === "user")!;
    const lastUserText = pieces(lastUser).join("\n");
    check(
      ruleNames(lastUserText).includes("database/migrations") &&
        lastUserText.indexOf("<rulebook>") < lastUserText.indexOf(p2),
      'keyword rule database/migrations ("migration") went into that user message, before the user\'s words',
    );
    check(!ruleCounts(r1).has("database/migrations"), "it was in no request before that prompt");
    printRequest(b!, "after the read tool call");
    const readResult = pieces(b!.body.messages.at(-1)!).join("\n");
    check(
      b!.body.messages.at(-1)!.role === "tool" && ruleNames(readResult).includes("typescript"),
      "typescript rule (globs src/**/*.ts) appended to the read result of src/app.ts",
    );
    check(!ruleCounts(a!).has("typescript"), "typescript was in no request before the read");
    printRequest(c!, "after the rule tool call");
    const ruleResult = pieces(c!.body.messages.at(-1)!).join("\n");
    check(ruleNames(ruleResult).includes("security"), "the rule tool returned the on-request rule security");

    // ── 4. Compaction: everything active is delivered again, once ─────────
    section("4. Compaction: the rules come back, once");
    const before = rulesParts(await getMessages(client, session.id)).length;
    now("user compacts the session (POST /session/:id/summarize)");
    mark = model.requests.length;
    unwrap(
      await client.session.summarize({ path: { id: session.id }, body: { providerID: "fake", modelID: "fake-model" } }),
      "session.summarize",
    );
    const summary = model.requests.slice(mark).find(isSummaryRequest);
    if (summary) at(summary.time, `model request #${summary.seq}: OpenCode's compaction summary (not a main turn)`);
    const again = await waitFor(
      async () => {
        const parts = rulesParts(await getMessages(client, session.id));
        return parts.length > before ? parts.at(-1) : undefined;
      },
      { timeoutMs: 10_000, message: "the rules message after compaction" },
    );
    at(
      again.message.info.time.created,
      `plugin stored a new silent rules message (${kb(again.part.text)}), trigger: ${again.marker.trigger}`,
    );
    detail(`rules in it: ${list(again.marker.rules)}`);
    const expected = ["style-guide", "demo-global", "database/migrations", "typescript", "security"];
    check(
      expected.every((name) => again.marker.rules.includes(name)),
      "it carries every rule active in the session: always-on, keyword, file and the one read on request",
      list(again.marker.rules),
    );
    await waitForIdle(client, session.id);
    check(
      model.requests.slice(mark).filter(isMainRequest).length === 0,
      "compaction and re-delivery caused no model turn",
    );

    model.enqueue("Noted: migration first, with a down step.");
    const p3 = "What was the plan again?";
    now(`user: ${quote(p3)}`);
    mark = model.requests.length;
    await prompt(client, session.id, p3);
    const turn3 = model.requests.slice(mark).filter(isMainRequest);
    for (const r of turn3) printRequest(r, "answering prompt 3, after compaction");
    check(turn3.length === 1, "one model request for the turn", `${turn3.length} requests`);
    const counts = ruleCounts(turn3[0]!);
    check(
      expected.every((name) => counts.get(name) === 1),
      "every active rule is in that request exactly once",
      JSON.stringify(Object.fromEntries(counts)),
    );

    // ── 5. Switching agent: plan, then build (Tab in the terminal UI) ─────
    section("5. Switching agent: plan, then back to build");
    model.enqueue("Plan: 1. migration (db/); 2. model (src/); 3. tests.");
    const p4 = "Plan the users feature.";
    now(`user, as agent plan: ${quote(p4)}`);
    mark = model.requests.length;
    await prompt(client, session.id, p4, { agent: "plan" });
    const turn4 = model.requests.slice(mark).filter(isMainRequest);
    for (const r of turn4) printRequest(r, "answering prompt 4, as plan");
    check(turn4.length === 1, "one model request for the turn", `${turn4.length} requests`);
    const planUser = pieces([...turn4[0]!.body.messages].reverse().find((m) => m.role === "user")!).join("\n");
    check(
      ruleNames(planUser).includes("planning") && planUser.indexOf("<rulebook>") < planUser.indexOf(p4),
      "the plan-only rule planning (agents: [plan]) went into that user message, before the user's words",
    );
    check(
      model.requests.slice(0, mark).every((r) => !ruleCounts(r).has("planning")),
      "it was in no request before: the session worked as build until now",
    );
    model.enqueue("Starting with the migration.");
    const p5 = "Build step 1.";
    now(`user, back to agent build: ${quote(p5)}`);
    mark = model.requests.length;
    await prompt(client, session.id, p5, { agent: "build" });
    const turn5 = model.requests.slice(mark).filter(isMainRequest);
    for (const r of turn5) printRequest(r, "answering prompt 5, as build");
    check(
      turn5.length === 1,
      "one model request for the turn: the switch costs no extra turn",
      `${turn5.length} requests`,
    );
    const buildUser = pieces([...turn5[0]!.body.messages].reverse().find((m) => m.role === "user")!).join("\n");
    const notice = buildUser.match(/Not in effect while you work as agent build[^.]*\.[^.]*\./)?.[0];
    if (notice) detail(`notice: ${quote(notice, 160)}`);
    check(
      notice?.includes("planning") && buildUser.indexOf(notice) < buildUser.indexOf(p5),
      "that user message says, before the user's words, that planning does not apply while working as build",
    );
    check(
      ruleCounts(turn5[0]!).get("planning") === 1,
      "the planning rule's text stays once in the request (history), never sent again",
    );

    // ── 6. A rule that holds ────────────────────────────────────────────
    section("6. A rule that holds: the model is stopped, and corrects itself");
    const greetTs = path.join(projectDir, "src", "greet.ts");
    model.enqueue(
      {
        text: "Adding a greeting with a log line.",
        toolCalls: [
          {
            name: "write",
            arguments: { filePath: greetTs, content: 'export function hello() {\n  console.log("hello");\n}\n' },
          },
        ],
      },
      {
        text: "The logging rule forbids that: using src/log.ts.",
        toolCalls: [
          {
            name: "write",
            arguments: {
              filePath: greetTs,
              content: 'import { log } from "./log.js";\nexport function hello() {\n  log("hello");\n}\n',
            },
          },
        ],
      },
      "Done: hello() logs through src/log.ts.",
    );
    const p6 = "Add a hello() that logs a greeting.";
    now(`user: ${quote(p6)}`);
    mark = model.requests.length;
    await prompt(client, session.id, p6);
    const turn6 = model.requests.slice(mark).filter(isMainRequest);
    const refused = turn6[1] ? pieces(turn6[1].body.messages.at(-1)!).join("\n") : "";
    if (turn6[1]) printRequest(turn6[1], "after the refused write");
    detail(`the model read: ${quote(refused.split("\n").slice(0, 2).join(" "), 220)}`);
    check(
      refused.includes('Rule "logging" forbids `console.log(` in "src/greet.ts" line 2'),
      "the write adding console.log( to src/greet.ts was refused, naming the rule, the pattern and the line",
    );
    check(
      ruleCounts(turn6[1]!).get("logging") === 1 && !ruleNames(refused).includes("logging"),
      "the logging rule's text is in that request once: the window held it already (src/app.ts was read), so the refusal names it without repeating it",
    );
    check(
      turn6.length === 3 && !fs.readFileSync(greetTs, "utf8").includes("console.log("),
      "the corrected write went through in the same turn; the file never held console.log(",
    );

    // ── 7. What the rules did ───────────────────────────────────────────
    section("7. What the rules did: the record, read by opencode-rulebook stats");
    const stats = await recordedStats(oc, projectDir);
    for (const line of stats.text.trimEnd().split("\n")) detail(line);
    const logging = stats.json?.rules.find((row) => row.rule === "logging");
    check(
      logging?.refused === 1 && logging.corrected === 1 && logging.gaveUp === 0,
      "the record holds the refusal and its correction: logging refused 1, corrected 1, given up 0",
      JSON.stringify(logging),
    );
    check(
      !stats.raw.includes('console.log("hello")') && !stats.raw.includes(p6),
      "the record names rules, files and patterns: no line of the file written, no prompt",
    );

    // ── Summary ──────────────────────────────────────────────────────────
    section("Every model request");
    for (const r of model.requests) {
      const kind = isTitleRequest(r) ? "title  " : isSummaryRequest(r) ? "summary" : "main   ";
      at(r.time, `#${String(r.seq).padEnd(2)} ${kind} rules seen: ${list([...ruleCounts(r).keys()])}`);
    }
    out();
    now(`Demo finished: all ${checks} checks passed. Stopping OpenCode.`);
  } finally {
    await oc?.stop();
    running = undefined;
  }
}

interface StatsRow {
  rule: string;
  refused: number;
  corrected: number;
  gaveUp: number;
}

/**
 * `opencode-rulebook stats` over the record the plugin kept in OpenCode's home, as a user runs it; the plugin writes
 * its record in batches a second apart, so it is read again until the refusal's correction is there (3 s at most).
 */
async function recordedStats(
  oc: OpencodeInstance,
  projectDir: string,
): Promise<{ text: string; json?: { rules: StatsRow[] }; raw: string }> {
  const host = hostEnvironment(oc.homeDir);
  const env = { ...process.env, ...host, NO_COLOR: "1" };
  const cli = (...args: string[]) =>
    execFileSync(process.execPath, [path.join(REPO, "dist", "cli", "main.js"), ...args, "--cwd", projectDir], {
      env,
      encoding: "utf8",
    });
  let json: { rules: StatsRow[] } | undefined;
  for (let tries = 0; tries < 15; tries++) {
    json = JSON.parse(cli("stats", "--json")) as { rules: StatsRow[] };
    if (json.rules.some((row) => row.rule === "logging" && row.corrected > 0)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const folder = path.join(host.XDG_STATE_HOME ?? "", "opencode", "rulebook");
  const raw = fs.existsSync(folder)
    ? fs
        .readdirSync(folder)
        .map((name) => fs.readFileSync(path.join(folder, name), "utf8"))
        .join("")
    : "";
  return { text: cli("stats"), json, raw };
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  // Runs before the harness's own handler, which kills OpenCode's process group and exits at once:
  // kill it here first (by its pid) so its temporary folder can be removed too.
  process.on(signal, () => {
    process.stderr.write(`\nDemo interrupted (${signal}): stopping OpenCode.\n`);
    if (running) {
      try {
        process.kill(-running.pid, "SIGKILL");
      } catch {
        /* already gone */
      }
      fs.rmSync(running.rootDir, { recursive: true, force: true, maxRetries: 3 });
    }
    setImmediate(() => process.exit(130));
  });
}
const deadline = setTimeout(() => {
  process.stderr.write(`\nDemo failed: it did not finish within ${DEMO_TIMEOUT_MS / 1000}s.\n`);
  process.exit(1);
}, DEMO_TIMEOUT_MS);
deadline.unref();

main().then(
  () => process.exit(0),
  (error: unknown) => {
    const failedCheck = error instanceof DemoFailure;
    process.stderr.write(
      `\nDemo failed: ${failedCheck ? "" : "error: "}${error instanceof Error ? (failedCheck ? error.message : (error.stack ?? error.message)) : String(error)}\n`,
    );
    process.exit(1);
  },
);
