/**
 * Rules for a team (issue 41), on every host: a Git pack's always rule and an
 * npm pack's glob rule arrive like local rules; a managed rule is delivered
 * although the project has a rule of its name and switches it off; a
 * managed `forbid` refuses with the user's `enforce: "off"`; the Rules panel
 * names packs and the managed tier. The Git pack is a real repository,
 * installed with `opencode-rulebook packs install` before the host starts.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test, vi } from "vitest";
import { CLI } from "../support/cli.js";
import { EVERY_HOST, hostForTheTable, requestText, lastToolText } from "../support/scenario-checks.js";
import { GIT_ENV } from "../support/git-env.js";

const MARK = {
  git: "MARK-GIT-PACK-ALWAYS-3a1",
  npm: "MARK-NPM-PACK-API-7c4",
  managed: "MARK-MANAGED-SECRETS-0d9",
  project: "MARK-PROJECT-SECRETS-5e2",
} as const;

const upstream = realpathSync(mkdtempSync(join(tmpdir(), "rulebook-upstream-")));
const git = (...args: string[]) =>
  execFileSync("git", args, { cwd: upstream, env: { ...process.env, ...GIT_ENV }, stdio: "pipe" });
mkdirSync(join(upstream, "rules"));
writeFileSync(
  join(upstream, "rules", "team-always.md"),
  `---\nalwaysApply: true\n---\n${MARK.git}: the team's conventions.\n`,
);
git("init", "-q", "-b", "main");
git("add", "-A");
git("commit", "-qm", "team rules");
afterAll(() => rmSync(upstream, { recursive: true, force: true }));

const GIT_SPEC = `git+file://${upstream}#main`;
const PACKS = [GIT_SPEC, "@acme/rules"];

describe.each(EVERY_HOST)("%s", (_name, driver) => {
  const host = hostForTheTable(driver, {
    pluginOptions: { enforce: "off", packs: PACKS },
    managedRules: { "secrets.md": `---\nforbid: AKIA\n---\n${MARK.managed}: never commit cloud keys.\n` },
    projectRules: {
      // Named like the managed rule, and switched off: neither touches it.
      "secrets.md": "---\nenabled: false\n---\nSwitched off here.\n",
      "no-console.md": '---\nglobs: src/**\nforbid: "console.log("\n---\nNo console.\n',
    },
    projectFiles: {
      ".cursor/rules/secrets.mdc": `---\nalwaysApply: true\n---\n${MARK.project}: the project's own secrets notes.\n`,
      "node_modules/@acme/rules/package.json": JSON.stringify({
        name: "@acme/rules",
        version: "2.1.0",
        "opencode-rulebook": { rules: "rules" },
      }),
      "node_modules/@acme/rules/rules/api.md": `---\nglobs: src/api/**\n---\n${MARK.npm}: validate every request body.\n`,
      "src/api/users.ts": "export const users = [];\n",
    },
    prepare({ project, env }) {
      // OpenCode 2 reads `plugins` entries; the OpenCode 1 harness wrote its own config already.
      const config = join(project, "opencode.json");
      if (!existsSync(config))
        writeFileSync(
          config,
          JSON.stringify({ plugins: [{ package: "opencode-rulebook", options: { packs: PACKS } }] }),
        );
      execFileSync(process.execPath, [CLI, "packs", "install"], {
        cwd: project,
        env: { ...process.env, ...GIT_ENV, ...env },
        stdio: "pipe",
      });
    },
  });

  test("a Git pack's always rule arrives at once; an npm pack's glob rule when its file is touched", {
    timeout: 60_000,
  }, async () => {
    const session = await host.newSession();
    const [first, afterRead] = await host.turn(session, "Look at the users API.", [
      { read: host.projectPath("src/api/users.ts") },
      { answer: "ok" },
    ]);
    expect(requestText(first)).toContain(MARK.git);
    expect(requestText(first)).not.toContain(MARK.npm);
    expect(requestText(afterRead)).toContain(MARK.npm);
  });

  test("a managed rule is delivered although the project has a rule of its name and switches it off", {
    timeout: 60_000,
  }, async () => {
    const session = await host.newSession();
    const [request] = await host.turn(session, "Hello.");
    expect(requestText(request)).toContain(MARK.managed);
    // The project's rule of that name is delivered beside it, under its own name.
    expect(requestText(request)).toContain(MARK.project);
    expect(requestText(request).indexOf(MARK.managed)).toBeLessThan(requestText(request).indexOf(MARK.project));
  });

  test("a managed forbid refuses although the user's option is enforce: \"off\", which switches the project's off", {
    timeout: 60_000,
  }, async () => {
    const session = await host.newSession();
    const keyFile = host.projectPath("src/config.ts");
    const logFile = host.projectPath("src/log.ts");
    const requests = await host.turn(session, "Add the config and a log line.", [
      { write: keyFile, content: 'export const key = "AKIAIOSFODNN7EXAMPLE";\n' },
      { write: logFile, content: 'console.log("kept: the user switched checks off");\n' },
      { answer: "done" },
    ]);
    expect(lastToolText(requests[1])).toContain('Rule "secrets" forbids `AKIA`');
    expect(existsSync(keyFile)).toBe(false);
    expect(readFileSync(logFile, "utf8")).toContain("console.log(");
  });

  test("the Rules panel names the pack and the managed tier of the rules it holds", { timeout: 60_000 }, async () => {
    const session = await host.newSession();
    await host.turn(session, "Look at the users API.", [
      { read: host.projectPath("src/api/users.ts") },
      { answer: "ok" },
    ]);
    await vi.waitFor(
      async () => {
        const panel = await host.rulesPanel(session);
        if (panel === "no panel") return;
        const shown = panel.join("\n");
        expect(shown).toContain("managed");
        expect(shown).toContain("@acme/rules@2.1.0");
      },
      { timeout: 5000, interval: 50 },
    );
  });
});
