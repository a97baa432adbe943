/**
 * A repository is untrusted input (real OpenCode). The project below is
 * hostile: its rule files and folders are symlinks to secrets outside it,
 * its rules reference outside files by absolute and by `../` paths, and one
 * rule has a glob that backtracks catastrophically on a long file name that
 * the model reads. Opening it must not send any outside secret to the model,
 * must not stall OpenCode, and must still deliver the project's ordinary
 * rules.
 *
 * Layout (<root> is the harness's temp folder):
 *   <root>/outside/                    not part of the project
 *     leak-secret.md                   SECRET-TOKEN-LEAK-…    ← .opencode/rules/leak.md (symlink)
 *     cursor-secret.md                 SECRET-TOKEN-CURSOR-…  ← .cursorrules (symlink)
 *     claude-dir/x.md                  SECRET-TOKEN-CLAUDE-…  ← .claude/rules (symlink to the folder)
 *     kiro-ref-secret.md               SECRET-TOKEN-KIROREF-… ← `#[[file:<abs path>]]` in .kiro/steering/ref.md
 *     at-ref-secret.md                 SECRET-TOKEN-ATREF-…   ← `@../../../outside/at-ref-secret.md` in .opencode/rules/ref2.md
 *   <root>/project/
 *     .opencode/rules/good.md          always on: MARK-GOOD (must arrive)
 *     .opencode/rules/txt.md           globs **\/*.txt: MARK-GLOB-TXT (must arrive with the read)
 *     .opencode/rules/backtrack.md     globs "**\/a*a*a*a*a*a*a*a*a*a*a*a*b"
 *     aaa…a.txt                        200 `a`s + .txt, read by the scripted model
 *
 * The tests share one turn: the first sends it (and fails if it never
 * finishes), the others judge what the fake model recorded, so a stalled turn
 * does not hide a leak.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { isMainRequest, requestText, toolResults, type RecordedRequest } from "./harness/fake-model.js";
import { startOpencode, type OpencodeInstance } from "./harness/opencode.js";
import { PLUGIN_UNDER_TEST } from "./harness/rules.js";
import { assistantMessages, createSession, getMessages, messageText, prompt } from "./harness/wait.js";

const nonce = randomBytes(6).toString("hex");
/** One marker per way a secret could get in, so a failure names the hole. */
const SECRETS = {
  "symlinked rule file .opencode/rules/leak.md": `SECRET-TOKEN-LEAK-${nonce}`,
  "symlinked .cursorrules": `SECRET-TOKEN-CURSOR-${nonce}`,
  "symlinked folder .claude/rules": `SECRET-TOKEN-CLAUDE-${nonce}`,
  "absolute #[[file:…]] reference in .kiro/steering/ref.md": `SECRET-TOKEN-KIROREF-${nonce}`,
  "relative @../… reference in .opencode/rules/ref2.md": `SECRET-TOKEN-ATREF-${nonce}`,
} as const;

const MARK_GOOD = `MARK-GOOD-${nonce}`;
const MARK_GLOB_TXT = `MARK-GLOB-TXT-${nonce}`;
const FILE_CONTENT = `LONG-FILE-CONTENT-${nonce}`;
const FINAL_ANSWER = `DONE-READING-${nonce}`;
/** 200 `a`s: far under the 255-byte name limit, far past what the glob's backtracking can take. */
const LONG_NAME = `${"a".repeat(200)}.txt`;
const BACKTRACKING_GLOB = "**/a*a*a*a*a*a*a*a*a*a*a*a*b";

const secretText = (marker: string) =>
  `# Private\n- ${marker}: this text lives outside the project and must never reach the model.\n`;

describe("a hostile repository (real OpenCode)", { timeout: 60_000 }, () => {
  let oc: OpencodeInstance;
  let longFile: string;
  /** Set when the turn finished; the later tests say so when it did not. */
  let turnFinished = false;

  beforeAll(async () => {
    oc = await startOpencode({
      pluginPath: PLUGIN_UNDER_TEST,
      projectRules: {
        "good.md": `---\nalwaysApply: true\n---\n# Language\n- Always answer in English. ${MARK_GOOD}\n`,
        "txt.md": `---\nglobs: "**/*.txt"\n---\n# Text files\n- ${MARK_GLOB_TXT}: keep lines short.\n`,
        "backtrack.md": `---\nglobs: "${BACKTRACKING_GLOB}"\n---\n# Backtracking\n- MARK-BACKTRACK: a glob no engine should choke on.\n`,
      },
      projectFiles: { [LONG_NAME]: `${FILE_CONTENT}\n` },
      prepare: ({ rootDir, projectDir, projectRulesDir }) => {
        const outside = path.join(rootDir, "outside");
        const secret = (rel: string, marker: string) => {
          const file = path.join(outside, rel);
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.writeFileSync(file, secretText(marker));
          return file;
        };
        const leak = secret("leak-secret.md", SECRETS["symlinked rule file .opencode/rules/leak.md"]);
        const cursor = secret("cursor-secret.md", SECRETS["symlinked .cursorrules"]);
        secret("claude-dir/x.md", SECRETS["symlinked folder .claude/rules"]);
        const kiroRef = secret(
          "kiro-ref-secret.md",
          SECRETS["absolute #[[file:…]] reference in .kiro/steering/ref.md"],
        );
        secret("at-ref-secret.md", SECRETS["relative @../… reference in .opencode/rules/ref2.md"]);

        fs.symlinkSync(leak, path.join(projectRulesDir, "leak.md"));
        fs.symlinkSync(cursor, path.join(projectDir, ".cursorrules"));
        fs.mkdirSync(path.join(projectDir, ".claude"), { recursive: true });
        fs.symlinkSync(path.join(outside, "claude-dir"), path.join(projectDir, ".claude", "rules"), "dir");
        fs.mkdirSync(path.join(projectDir, ".kiro", "steering"), { recursive: true });
        fs.writeFileSync(
          path.join(projectDir, ".kiro", "steering", "ref.md"),
          `# Reference\nDetails: #[[file:${kiroRef}]]\n`,
        );
        // .opencode/rules → .opencode → project → <root>: three levels up leaves the project.
        fs.writeFileSync(
          path.join(projectRulesDir, "ref2.md"),
          `---\nalwaysApply: true\n---\n# More details\n@../../../outside/at-ref-secret.md\n`,
        );
        // The fixture is what it claims: the relative reference does lead outside, to the secret.
        const target = path.resolve(projectRulesDir, "../../../outside/at-ref-secret.md");
        if (!path.relative(projectDir, target).startsWith("..") || !fs.existsSync(target)) {
          throw new Error(`fixture: ${target} should exist outside ${projectDir}`);
        }
      },
    });
    longFile = path.join(oc.projectDir, LONG_NAME);
  }, 60_000);

  afterAll(async () => {
    await oc?.stop();
  }, 30_000);

  /** Every recorded request (title requests included), as the raw JSON the model received. */
  const rawRequests = () => oc.fakeModel.requests.map((r) => ({ r, raw: JSON.stringify(r.body) }));
  const mainRequests = () => oc.fakeModel.requests.filter(isMainRequest);
  const afterRead = (): RecordedRequest | undefined =>
    mainRequests().find((r) => toolResults(r).some((t) => t.text.includes(FILE_CONTENT)));
  const notFinished = () =>
    turnFinished ? "" : " (the turn never finished; only the requests made before it stalled were checked)";

  test("a turn that reads a file whose name makes a rule's glob backtrack still finishes", async () => {
    const { id } = await createSession(oc.client);
    oc.fakeModel.enqueue({ toolCalls: [{ name: "read", arguments: { filePath: longFile } }] }, FINAL_ANSWER);
    // The harness waits for the turn; a stalled OpenCode answers nothing, so give the hang a readable name
    // shortly before vitest's own timeout would cut the test off with a generic message.
    const turn = prompt(oc.client, id, "Please read the long text file in the project root.");
    turn.catch(() => {}); // still pending when the server is stopped after a stall
    const stalled = new Promise<"stalled">((resolve) => setTimeout(() => resolve("stalled"), 50_000).unref());
    if ((await Promise.race([turn, stalled])) === "stalled") {
      const main = mainRequests();
      const sawRead = main.some((r) => r.reply?.toolCalls?.some((t) => t.name === "read"));
      throw new Error(
        `the turn did not finish: OpenCode stopped answering after ${main.length} model request(s)` +
          (sawRead
            ? `; the model had asked to read ${LONG_NAME.slice(0, 12)}….txt and the result never came back`
            : "") +
          `. Matching "${BACKTRACKING_GLOB}" against the 200-character name seems to block the event loop.`,
      );
    }
    turnFinished = true;
    const answers = assistantMessages(await getMessages(oc.client, id)).map((m) => messageText(m));
    expect(answers, "the scripted final answer is stored").toContain(FINAL_ANSWER);
    expect(afterRead(), "a model request carries the read's result").toBeDefined();
  });

  test("no secret from outside the project reaches the model, in any request", () => {
    const recorded = rawRequests();
    expect(
      recorded.filter(({ r }) => isMainRequest(r)).length,
      "at least one model request was recorded",
    ).toBeGreaterThan(0);
    const leaks = Object.entries(SECRETS).flatMap(([channel, marker]) => {
      const seqs = recorded.filter(({ raw }) => raw.includes(marker)).map(({ r }) => r.seq);
      return seqs.length ? [`${channel}: ${marker} in request(s) #${seqs.join(", #")}`] : [];
    });
    expect(leaks, `secrets that reached the model (of ${recorded.length} requests)${notFinished()}`).toEqual([]);
  });

  test("the project's ordinary always-on rule still reaches the model", () => {
    const main = mainRequests();
    expect(main.length, "at least one model request was recorded").toBeGreaterThan(0);
    expect(requestText(main[0]!), `the first model request holds the always-on rule ${MARK_GOOD}`).toContain(MARK_GOOD);
  });

  test("an ordinary glob rule still arrives with the long file's read result", () => {
    const request = afterRead();
    expect(request, `a model request carries the read's result${notFinished()}`).toBeDefined();
    const result = toolResults(request!)
      .map((t) => t.text)
      .join("\n");
    expect(result, `the read result holds the **/*.txt rule ${MARK_GLOB_TXT}`).toContain(MARK_GLOB_TXT);
  });
});
