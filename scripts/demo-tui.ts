/**
 * `npm run demo:tui`: the Rules panel in OpenCode's own terminal UI, in your
 * terminal, offline, no API key.
 *
 * Builds (the npm script does), then starts the pinned `opencode serve` in a
 * temporary git project whose `.opencode/rules/` holds a copy of
 * `rules-examples/`, installs this package there as users do
 * (`opencode plugin`, which writes opencode.json and tui.json), and runs
 * `opencode attach` in the foreground. The model is the e2e tests' scripted
 * fake: a prompt naming a file of the project (src/app.ts) makes it read the
 * file; any other prompt gets a one-line answer. Quitting the terminal UI
 * stops OpenCode and removes the temporary folders.
 *
 * The setup is the Rules panel e2e test's (test/e2e/harness/tui.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { DIST_PLUGIN, REPO_ROOT, type OpencodeInstance } from "../test/e2e/harness/opencode.js";
import { OPENCODE_BIN } from "../test/e2e/harness/server.js";
import { ruleFilesIn } from "../test/e2e/harness/rules.js";
import { tuiEnv } from "../test/e2e/harness/tui.js";
import { startRulesProject } from "../test/e2e/harness/tui-project.js";

const EXAMPLES = path.join(REPO_ROOT, "rules-examples");
const TUI_ENTRY = path.join(REPO_ROOT, "dist", "tui.js");
/** OpenCode shows its sidebar beside the conversation when the terminal is wider than this. */
const SIDEBAR_FROM_COLUMNS = 121;

const say = (line: string) => process.stdout.write(`${line}\n`);
const fail = (line: string): never => {
  process.stderr.write(`demo:tui: ${line}\n`);
  process.exit(1);
};

/** The running OpenCode server and terminal UI, for the signal handlers. */
let server: OpencodeInstance | undefined;
let tui: ChildProcess | undefined;

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  // Registered before the harness's own handler (which kills the server's process group and exits at once),
  // so the terminal UI gets a chance to restore the terminal and the temporary folder is removed too.
  process.on(signal, () => {
    tui?.kill("SIGTERM");
    if (server) {
      try {
        process.kill(-server.pid, "SIGKILL");
      } catch {
        /* already gone */
      }
      fs.rmSync(server.rootDir, { recursive: true, force: true, maxRetries: 3 });
    }
    setImmediate(() => process.exit(130));
  });
}

async function main(): Promise<void> {
  if (!process.stdout.isTTY || !process.stdin.isTTY)
    fail("it needs a terminal: run `npm run demo:tui` in an interactive terminal (`npm run demo` needs none).");
  for (const file of [DIST_PLUGIN, TUI_ENTRY])
    if (!fs.existsSync(file))
      fail(`the plugin is not built (${file} is missing): run \`npm run build\` first, or use \`npm run demo:tui\`.`);

  const { oc } = await startRulesProject({
    projectRules: ruleFilesIn(EXAMPLES),
    projectFiles: { "README.md": "# shop\n\nA tiny demo project.\n" },
    fakeModelOptions: { titleReply: "Rules panel demo" },
  });
  server = oc;
  const narrow = (process.stdout.columns ?? SIDEBAR_FROM_COLUMNS) < SIDEBAR_FROM_COLUMNS;
  say(
    `OpenCode is running offline on ${oc.url}, in a temporary project with the rules of rules-examples/, the plugin installed by \`opencode plugin\`.`,
  );
  say(
    'Type "What does this project do?", then "Read src/app.ts" and "Plan a migration": the Rules panel in the sidebar lists each rule and why it applies.',
  );
  say(
    `The model is a scripted fake. Quit with ctrl+c: OpenCode and the temporary project are removed.${narrow ? " (Narrower than 121 columns: ctrl+x b shows the sidebar.)" : ""}`,
  );

  // The terminal UI covers the screen at once: the lines above are read first.
  process.stdout.write("Press Enter to open OpenCode… ");
  await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));
  process.stdin.pause();

  const env = tuiEnv(oc, process.env.TERM || "xterm-256color");
  if (process.env.COLORTERM) env.COLORTERM = process.env.COLORTERM;
  const child = spawn(OPENCODE_BIN, ["attach", oc.url, "--dir", oc.projectDir], {
    cwd: oc.projectDir,
    env,
    stdio: "inherit",
  });
  tui = child;
  const code = await new Promise<number>((resolve) => {
    child.once("error", (error) => {
      process.stderr.write(`demo:tui: could not start OpenCode's terminal UI: ${error.message}\n`);
      resolve(1);
    });
    child.once("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
  });
  tui = undefined;
  if (code !== 0)
    process.stderr.write(
      `demo:tui: OpenCode's terminal UI exited with code ${code}. The server's output:\n${oc.logs()}\n`,
    );
  await oc.stop();
  server = undefined;
  process.exit(code);
}

main().catch(async (error: unknown) => {
  process.stderr.write(`demo:tui failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await server?.stop();
  process.exit(1);
});
