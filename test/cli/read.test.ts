/** `list`, `explain` and `render`, run as a user runs them. */
import { join } from "node:path";
import { beforeEach, describe, expect, test } from "vitest";
import { composeRulesMessage } from "../../src/render/compose.js";
import { mentionedRuleNames } from "../../src/select/mentions.js";
import { nodeRuleFs } from "../../src/discover/fs.js";
import { DEFAULT_MAX_RULE_BYTES } from "../../src/discover/discover.js";
import { loadRules } from "../../src/formats/load.js";
import { sectionBytes } from "../../src/render/fit.js";
import { ruleTokens } from "../../src/render/tokens.js";
import { markerFor } from "../../src/session/marker.js";
import { rulesPanel } from "../../src/panel/rules-panel.js";
import { panelLines } from "../../src/panel/panel-lines.js";
import { GLOBAL_RULES, projectTree } from "../support/cli-fixtures.js";
import { ANSI, sandbox, type Sandbox, useSandbox } from "../support/cli.js";

const current = useSandbox(async (box) => {
  await box.write(projectTree());
  for (const [name, text] of Object.entries(GLOBAL_RULES)) await box.write({ [join(box.globalRules, name)]: text });
});
let box: Sandbox;
beforeEach(() => {
  box = current();
});

/** The rules as the plugin loads them for this sandbox. */
function loadForSandbox(maxRuleBytes = DEFAULT_MAX_RULE_BYTES) {
  return loadRules({
    env: { HOME: box.home, XDG_CONFIG_HOME: box.xdg },
    home: box.home,
    directory: box.project,
    worktree: box.project,
    fs: nodeRuleFs,
    maxRuleBytes,
  });
}

describe("list", () => {
  test("a rule from another tool shows that tool's own name for its type beside the activation it maps to", async () => {
    await box.write({
      ".cursor/rules/api.mdc": "---\ndescription: API conventions\n---\nVersion every route.",
      ".kiro/steering/components.md":
        "---\ninclusion: fileMatch\nfileMatchPattern: 'src/**/*.tsx'\n---\nOne component per file.",
      ".windsurf/rules/review.md": "---\ntrigger: model_decision\ndescription: Code review\n---\nCheck tests first.",
    });
    const { stdout } = box.run(["list"]);
    expect(stdout).toMatch(/^ {2}api\s+on request \(Agent Requested\)\s+\d+ B/m);
    expect(stdout).toMatch(/^ {2}components\s+files: src\/\*\*\/\*\.tsx \(fileMatch\)\s+\d+ B/m);
    expect(stdout).toMatch(/^ {2}review\s+on request \(model_decision\)\s+\d+ B/m);
    expect(stdout).toMatch(/^ {2}db\s+files: src\/db\/\*\*\s+\d+ B/m);
    const json = JSON.parse(box.run(["list", "--json"]).stdout) as {
      rules: Array<{ name: string; toolType: string | null }>;
    };
    const types = new Map(json.rules.map((rule) => [rule.name, rule.toolType]));
    expect(["api", "components", "review", "db"].map((name) => types.get(name))).toEqual([
      "Agent Requested",
      "fileMatch",
      "model_decision",
      null,
    ]);
  });

  test("groups rules by scope and source with activation, bytes, tokens and file", async () => {
    const style = (await loadForSandbox()).rules.find((rule) => rule.name === "style");
    const { stdout, stderr, code } = box.run(["list"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(stdout).not.toMatch(ANSI);
    const lines = stdout.split("\n");
    const globalAt = lines.indexOf("global · native");
    const projectAt = lines.indexOf("project · native");
    expect(globalAt).toBeGreaterThanOrEqual(0);
    expect(projectAt).toBeGreaterThan(globalAt);
    // A rule's size is what it costs in a rules message: its whole block, as the Rules panel counts it.
    const size = `${sectionBytes(style!)} B\\s+≈ ${ruleTokens(style!)} tokens`;
    expect(lines[globalAt + 1]).toMatch(
      new RegExp(`^ {2}style\\s+always\\s+${size}\\s+/.*/xdg/opencode/rules/style\\.md$`),
    );
    expect(stdout).toMatch(/^ {2}db\s+files: src\/db\/\*\*\s+\d+ B\s+≈ \d+ tokens\s+\.opencode\/rules\/db\.md$/m);
    expect(stdout).toMatch(/^ {2}migrations\s+keywords: migration, schema\s/m);
    expect(stdout).toMatch(/^ {2}release\s+on request\s/m);
    expect(stdout).toMatch(/^ {2}secret\s+manual \(@secret\)\s/m);
    expect(stdout).toMatch(/^ {2}testing\s+always\s/m);
    expect(stdout).toMatch(/^6 rules \(1 global, 5 project\), \d+ B ≈ \d+ tokens; 0 warnings\n$/m);
  });

  test("--json: every rule with its activation and size, in message order", async () => {
    const db = (await loadForSandbox()).rules.find((rule) => rule.name === "db");
    const { stdout, code } = box.run(["list", "--json"]);
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.projectRoot).toBe(box.project);
    expect(json.rules.map((rule: { name: string }) => rule.name)).toEqual([
      "style",
      "db",
      "migrations",
      "release",
      "secret",
      "testing",
    ]);
    const byName = Object.fromEntries(json.rules.map((rule: { name: string }) => [rule.name, rule]));
    expect(byName.db).toMatchObject({
      scope: "project",
      source: "native",
      activation: "conditional",
      globs: ["src/db/**"],
      description: "Database access",
      displayPath: ".opencode/rules/db.md",
    });
    expect(byName.db.bytes).toBe(sectionBytes(db!));
    expect(byName.db.bytes).toBeGreaterThan(Buffer.byteLength("Use the query builder, never string-built SQL."));
    expect(byName.db.tokens).toBe(ruleTokens(db!));
    expect(byName.db.tokens).toBe(Math.ceil(byName.db.bytes / 4));
    expect(byName.release.activation).toBe("on-request");
    expect(byName.secret.activation).toBe("manual");
    expect(byName.style).toMatchObject({ scope: "global", activation: "always" });
    expect(json.warnings).toEqual([]);
  });

  test("a rule's figure is one figure: list --json, explain --json and the Rules panel from the plugin's marker agree", async () => {
    const loaded = await loadForSandbox();
    const composed = composeRulesMessage(loaded.rules, { files: [] }, { listOnRequest: true });
    const lines = panelLines(rulesPanel([markerFor(composed!, "new-session")]), 37).map((line) => line.text);
    const listed = JSON.parse(box.run(["list", "--json"]).stdout) as { rules: Array<{ name: string; tokens: number }> };
    const explained = JSON.parse(box.run(["explain", "--json"]).stdout) as {
      delivered: Array<{ name: string; tokens: number }>;
    };
    expect(composed?.included.map(({ rule }) => rule.name)).toEqual(["style", "testing"]);
    for (const { rule } of composed?.included ?? []) {
      const tokens = listed.rules.find((entry) => entry.name === rule.name)?.tokens;
      expect(tokens).toBe(ruleTokens(rule));
      expect(explained.delivered.find((entry) => entry.name === rule.name)?.tokens).toBe(tokens);
      expect(lines).toContain(`• ${rule.name} · ≈ ${tokens} tokens`);
    }
    const total = composed?.included.reduce((sum, { rule }) => sum + ruleTokens(rule), 0);
    expect(lines).toContain(`In context (2 · ≈ ${total} tokens)`);
  });

  test("warnings and disabled rules are listed below the rules", async () => {
    await box.write({
      ".opencode/rules/broken.md": "---\nglobs: [\n---\nbroken\n",
      ".opencode/rules/off.md": "---\nenabled: false\n---\nOff.\n",
    });
    const { stdout, code } = box.run(["list"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Disabled \(enabled: false\)\n {2}off\s+\.opencode\/rules\/off\.md/);
    expect(stdout).toMatch(
      /Warnings\n {2}\.opencode\/rules\/broken\.md:\d+: front matter is not valid YAML .*rule "broken" skipped/,
    );
    const json = JSON.parse(box.run(["list", "--json"]).stdout);
    expect(json.disabled.map((file: { name: string }) => file.name)).toEqual(["off"]);
    expect(json.warnings).toHaveLength(1);
    expect(json.warnings[0]).toMatchObject({
      displayPath: ".opencode/rules/broken.md",
      message: expect.stringContaining('rule "broken" skipped'),
    });
  });

  test("no rules at all", async () => {
    const empty = await sandbox();
    try {
      const { stdout, code } = empty.run(["list"]);
      expect(code).toBe(0);
      expect(stdout).toContain("No rules found.");
      expect(stdout).toContain("0 rules (0 global, 0 project)");
    } finally {
      await empty.cleanup();
    }
  });
});

describe("explain", () => {
  test("says which rules are delivered and why, and which are not and why", () => {
    const { stdout, code } = box.run(["explain", "src/db/user.ts", "--prompt", "add a column to users"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Files: src/db/user.ts\n");
    expect(stdout).toContain('Prompt: "add a column to users"\n');
    expect(stdout).toMatch(/Delivered \(3\)\n/);
    // Each delivered rule with what it costs in the message, as `list` and the Rules panel give it.
    expect(stdout).toMatch(/✓ db\s+≈ \d+ tokens\s+files: src\/db\/user\.ts matched src\/db\/\*\*\n/);
    expect(stdout).toMatch(/✓ style\s+≈ \d+ tokens\s+always\n/);
    expect(stdout).toMatch(/✓ testing\s+≈ \d+ tokens\s+always\n/);
    expect(stdout).toMatch(/Not delivered \(3\)\n/);
    expect(stdout).toMatch(/✗ migrations\s+keywords: none of migration, schema in the prompt\n/);
    expect(stdout).toMatch(/✗ release\s+on request: listed by description, read with the rule tool\n/);
    expect(stdout).toMatch(/✗ secret\s+manual: applies only when the prompt mentions @secret\n/);
    expect(stdout).toMatch(
      /Message: \d+ B ≈ \d+ tokens \(budget 49152 B\); 3 rules delivered, 1 listed on request, 0 left out\n$/,
    );
  });

  test("--json, with keywords, @mentions and paths named in the prompt", () => {
    const { stdout, code } = box.run([
      "explain",
      "--json",
      "--prompt",
      "write a migration for src/db/user.ts, see @secret",
    ]);
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.files).toEqual(["src/db/user.ts"]);
    expect(json.mentioned).toEqual(["secret"]);
    const reasons = Object.fromEntries(
      json.delivered.map((entry: { name: string; reason: string }) => [entry.name, entry.reason]),
    );
    expect(reasons).toEqual({
      style: "always",
      db: "files: src/db/user.ts matched src/db/**",
      migrations: 'keywords: "migration" in the prompt',
      secret: "mention: @secret in the prompt",
      testing: "always",
    });
    expect(json.notDelivered).toEqual([
      expect.objectContaining({ name: "release", reason: expect.stringMatching(/^on request/) }),
    ]);
    expect(json.onRequest).toEqual(["release"]);
    expect(json.message.bytes).toBeGreaterThan(0);
    expect(json.message.tokens).toBe(Math.ceil(json.message.bytes / 4));
  });

  test("files are normalised to project-relative POSIX paths: absolute, ./, or relative to --cwd", async () => {
    const absolute = JSON.parse(
      box.run(["explain", "--json", join(box.project, "src", "db", "user.ts"), "./src/app.ts"]).stdout,
    );
    expect(absolute.files).toEqual(["src/db/user.ts", "src/app.ts"]);
    const fromSub = JSON.parse(box.run(["explain", "--json", "--cwd", "src", "db/user.ts"]).stdout);
    expect(fromSub.files).toEqual(["src/db/user.ts"]);
    expect(fromSub.delivered.map((entry: { name: string }) => entry.name)).toContain("db");
  });

  test("a rule left out for the budget says so", async () => {
    await box.write({
      "opencode.json": JSON.stringify({ plugin: [["opencode-rulebook", { maxMessageBytes: 1000 }]] }),
      ".opencode/rules/big.md": `---\npriority: 1\n---\n${"long text ".repeat(60)}\n`,
    });
    const json = JSON.parse(box.run(["explain", "--json"]).stdout);
    expect(json.leftOut).toEqual(["big"]);
    expect(json.notDelivered).toContainEqual(
      expect.objectContaining({
        name: "big",
        reason: expect.stringMatching(/^budget: applies, but left out of the 1000-byte message/),
      }),
    );
  });
});

describe("render", () => {
  test("stdout is exactly the session-start message the plugin composes, and a newline; the size goes to stderr", async () => {
    const { stdout, stderr, code } = box.run(["render"]);
    expect(code).toBe(0);
    const loaded = await loadForSandbox();
    const expected = composeRulesMessage(
      loaded.rules,
      { files: [] },
      { listOnRequest: true, maxBytes: 48 * 1024 },
    )?.text;
    expect(expected).toBeDefined();
    expect(stdout).toBe(`${expected}\n`);
    expect(stderr).toBe(
      `${Buffer.byteLength(expected as string)} B ≈ ${Math.ceil(Buffer.byteLength(expected as string) / 4)} tokens (budget 49152 B): 2 rules delivered, 1 listed on request, 0 left out\n`,
    );
  });

  test("--files (comma-separated and repeated) and --prompt compose the message for that session", async () => {
    const prompt = "a schema change, ask @secret";
    const { stdout, code } = box.run([
      "render",
      "--files",
      "src/db/user.ts,src/app.ts",
      "-f",
      "README.md",
      "--prompt",
      prompt,
    ]);
    expect(code).toBe(0);
    const loaded = await loadForSandbox();
    const mentioned = new Set(mentionedRuleNames(prompt, new Set(loaded.rules.map((rule) => rule.name))));
    const expected = composeRulesMessage(
      loaded.rules,
      { files: ["src/db/user.ts", "src/app.ts", "README.md"], prompt, mentioned },
      { listOnRequest: true },
    )?.text;
    expect(stdout).toBe(`${expected}\n`);
    for (const name of ["style", "db", "migrations", "secret", "testing"])
      expect(stdout).toContain(`<rule name="${name}"`);
  });

  test("--files takes several values, as explain does: the same message as the comma-separated form", () => {
    const spaced = box.run([
      "render",
      "--files",
      "src/db/user.ts",
      "src/app.ts",
      "README.md",
      "--prompt",
      "a schema change",
    ]);
    const commas = box.run(["render", "--files", "src/db/user.ts,src/app.ts,README.md", "--prompt", "a schema change"]);
    expect(spaced.code).toBe(0);
    expect(spaced.stderr).not.toContain("too many arguments");
    expect(spaced.stdout).toBe(commas.stdout);
    for (const name of ["db", "migrations", "testing"]) expect(spaced.stdout).toContain(`<rule name="${name}"`);
  });

  test("honours maxMessageBytes from opencode.json (JSONC, file:// plugin entry)", async () => {
    await box.write({
      "opencode.jsonc": `{\n  // the plugin, from a local build\n  "plugin": [["file://${join(box.project, "node_modules", "opencode-rulebook")}", { "maxMessageBytes": 600, },],],\n}\n`,
    });
    const { stdout, stderr } = box.run(["render"]);
    const loaded = await loadForSandbox();
    const expected = composeRulesMessage(loaded.rules, { files: [] }, { listOnRequest: true, maxBytes: 600 });
    expect(expected?.leftOut.length).toBeGreaterThan(0);
    expect(stdout).toBe(`${expected?.text}\n`);
    expect(stderr).toContain("(budget 600 B)");
    expect(stderr).toContain(`${expected?.leftOut.length} left out`);
  });

  test("no message: empty stdout, the reason on stderr", async () => {
    const empty = await sandbox();
    try {
      const { stdout, stderr, code } = empty.run(["render"]);
      expect(code).toBe(0);
      expect(stdout).toBe("");
      expect(stderr).toContain("No rules message");
    } finally {
      await empty.cleanup();
    }
  });

  test("never colours stdout, even when colours are forced", () => {
    const forced = box.run(["render"], { env: { FORCE_COLOR: "1" } });
    expect(forced.stdout).not.toMatch(ANSI);
    expect(forced.stdout).toBe(box.run(["render"]).stdout);
  });
});
