/**
 * The Rules panel in OpenCode's real terminal UI: the package installed as a
 * user installs it (`opencode plugin`, which writes opencode.json and
 * tui.json), `opencode attach` in a 200 x 50 tmux terminal, prompts typed at
 * the keyboard, and the sidebar read off the screen as text. Each rule joins
 * the panel when it enters the model's context, with what it costs and the
 * reason it applies.
 *
 * `RULEBOOK_UPDATE_SCREEN=1` saves the last screen to docs/rules-panel.txt
 * (shown in the README); otherwise the test writes nothing into the repository.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { REPO_ROOT, type OpencodeInstance } from "./harness/opencode.js";
import { attachTui, panelText, sidebarOf, type AttachedTui } from "./harness/tui.js";
import { plainAnswer, readAnswer, startRulesProject } from "./harness/tui-project.js";

const RULES = {
  "style-guide.md": "# Style guide\n\n- Prefer small, pure functions.\n",
  "typescript.mdc": "---\nglobs: src/**/*.ts\n---\n\n# TypeScript\n\n- `strict` is on: no `any`.\n",
  "database/migrations.md":
    "---\nkeywords: migration\n---\n\n# Database migrations\n\n- Every migration has a down step.\n",
};

const SCREEN_FILE = path.join(REPO_ROOT, "docs", "rules-panel.txt");

/** The Rules block of a screen's sidebar, as one line. */
const panelOf = (screen: string) => panelText(sidebarOf(screen));

describe("the Rules panel in OpenCode's terminal UI (tmux)", { timeout: 90_000 }, () => {
  let oc: OpencodeInstance | undefined;
  let tui: AttachedTui | undefined;

  afterEach(async () => {
    await tui?.stop();
    await oc?.stop();
    tui = undefined;
    oc = undefined;
  });

  test("installed with `opencode plugin`, it lists each rule as it enters the context, with why", async () => {
    const started = await startRulesProject({ projectRules: RULES });
    oc = started.oc;
    expect(started.installed.opencode.plugin).toContain(REPO_ROOT);
    expect(started.installed.tui.plugin).toContain(REPO_ROOT);
    tui = await attachTui(oc);

    // 1. A first prompt: the always-on rule is in context, the conditional ones are not.
    const first = "What does this project do?";
    await tui.type(first);
    let screen = await tui.waitForScreen((s) => s.includes(plainAnswer(first)) && panelOf(s).includes("style-guide"), {
      message: "the answer and a Rules block listing style-guide",
    });
    let panel = panelOf(screen);
    expect(panel).toMatch(/^Rules In context \(1 · ≈ \d+ tokens\) /);
    expect(panel).toMatch(/• style-guide · ≈ \d+ tokens always/);
    expect(panel).not.toContain("typescript");
    expect(panel).not.toContain("database/migrations");

    // 2. The model reads src/app.ts: the file rule joins, with the file and the glob it matched.
    await tui.type("Read src/app.ts please");
    screen = await tui.waitForScreen((s) => s.includes(readAnswer("src/app.ts")) && panelOf(s).includes("typescript"), {
      message: "the answer after the read and typescript in the Rules block",
    });
    panel = panelOf(screen);
    expect(panel).toMatch(/In context \(2 · ≈ \d+ tokens\)/);
    expect(panel).toMatch(/• typescript · ≈ \d+ tokens file src\/app\.ts matched src\/\*\*\/\*\.ts/);
    expect(panel).toMatch(/• style-guide · ≈ \d+ tokens always/);
    expect(panel).not.toContain("database/migrations");

    // 3. A prompt with the keyword: the keyword rule joins, with the word that matched.
    const third = "Plan a migration for users";
    await tui.type(third);
    screen = await tui.waitForScreen(
      (s) => s.includes(plainAnswer(third)) && panelOf(s).includes("database/migrations"),
      {
        message: "the answer and database/migrations in the Rules block",
      },
    );
    panel = panelOf(screen);
    expect(panel).toMatch(/In context \(3 · ≈ \d+ tokens\)/);
    expect(panel).toMatch(/• database\/migrations · ≈ \d+ tokens keyword "migration"/);
    expect(panel).toMatch(/• typescript · ≈ \d+ tokens file src\/app\.ts matched src\/\*\*\/\*\.ts/);
    expect(panel).toMatch(/• style-guide · ≈ \d+ tokens always/);

    if (process.env.RULEBOOK_UPDATE_SCREEN === "1") {
      fs.mkdirSync(path.dirname(SCREEN_FILE), { recursive: true });
      fs.writeFileSync(SCREEN_FILE, `${screen}\n`);
    }
  });

  test("a project without rules: the sidebar has no Rules block", async () => {
    const started = await startRulesProject();
    oc = started.oc;
    tui = await attachTui(oc);

    const words = "What does this project do?";
    await tui.type(words);
    const screen = await tui.waitForScreen(
      (s) => s.includes(plainAnswer(words)) && sidebarOf(s).split("\n").includes("Context"),
      {
        message: "the answer and the session's sidebar",
      },
    );
    expect(sidebarOf(screen).split("\n")).not.toContain("Rules");
    expect(panelOf(screen)).toBe("");
  });
});
