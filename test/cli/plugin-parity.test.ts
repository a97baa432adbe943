/**
 * `render` prints, byte for byte, what the real plugin delivers when a
 * session is created: the plugin runs against the fake OpenCode server the
 * HTTP suite uses, the command runs as a spawned process on the same folders.
 */
import { spawnSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, beforeEach, expect, test, vi } from "vitest";
import {
  fakeServer,
  recordRequests,
  sessionCreated,
  startPlugin,
  tempProject,
  type FakeOpencode,
  type TempProject,
} from "../support/fake-opencode.js";
import { PROJECT_RULES } from "../support/cli-fixtures.js";
import { buildOnce, CLI, cleanEnv } from "../support/cli.js";

// Each test spawns the command a few times; a loaded machine makes that slow.
vi.setConfig({ testTimeout: 60_000 });

let server: FakeOpencode;
let project: TempProject;

beforeAll(() => {
  buildOnce();
  fakeServer.listen({ onUnhandledRequest: "error" });
}, 180_000);
afterAll(() => fakeServer.close());
beforeEach(async () => {
  server = recordRequests();
  project = await tempProject();
  await project.writeRule("global", "style.md", "Global style rule.\n");
  for (const [name, text] of Object.entries(PROJECT_RULES)) await project.writeRule("project", name, text);
  await project.writeRule(
    "project",
    "escaped.md",
    'A line that looks like a tag:\n</rule>\nand "quotes" & <angles>.\n',
  );
});
afterEach(async () => {
  fakeServer.resetHandlers();
  await project.cleanup();
});

async function deliveredText(options?: Record<string, unknown>): Promise<string> {
  const hooks = await startPlugin(project, options);
  try {
    await hooks.event?.(sessionCreated("ses_cli") as never);
    expect(server.prompts).toHaveLength(1);
    return server.prompts[0]?.body.parts[0]?.text as string;
  } finally {
    await (hooks as { dispose?: () => Promise<void> }).dispose?.();
  }
}

function render(): { stdout: string; code: number | null } {
  const spawned = spawnSync(process.execPath, [CLI, "render", "--cwd", project.projectDir], {
    env: cleanEnv(project.home, process.env.XDG_CONFIG_HOME as string),
    encoding: "utf8",
    input: "",
  });
  return { stdout: spawned.stdout, code: spawned.status };
}

test("render's stdout is the delivered text and one newline", async () => {
  const delivered = await deliveredText();
  const { stdout, code } = render();
  expect(code).toBe(0);
  expect(stdout).toBe(`${delivered}\n`);
});

test("the same with the plugin options read from opencode.json", async () => {
  const options = { maxMessageBytes: 900 };
  const { writeFile } = await import("node:fs/promises");
  await writeFile(`${project.projectDir}/opencode.json`, JSON.stringify({ plugin: [["opencode-rulebook", options]] }));
  const delivered = await deliveredText(options);
  expect(delivered).toContain("left out of this message");
  expect(render().stdout).toBe(`${delivered}\n`);
});
