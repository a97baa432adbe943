/**
 * Rule files that change while OpenCode runs: new sessions get the current
 * rules; a session that holds a changed rule gets the new version once, with
 * a note; a deleted rule is withdrawn.
 */
import type { Hooks } from "@opencode-ai/plugin";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { MARKER_KEY } from "../../src/session/marker.js";
import { parseRulesMessage } from "../support/rules-message.js";
import {
  sessionCreated,
  startPlugin,
  type FakeOpencode,
  type TempProject,
  useFakeOpencode,
} from "../support/fake-opencode.js";

const fake = useFakeOpencode();
let server: FakeOpencode;
let project: TempProject;
let hooks: Hooks;

beforeEach(async () => {
  ({ server, project } = fake);
  await project.writeRule("project", "style.md", "Version one.\n");
  hooks = await startPlugin(project);
});
afterEach(async () => {
  await hooks.dispose?.();
});

/** fs.watch reports asynchronously; the plugin reloads at its next hook after that. */
const watcherLatency = () => new Promise((resolve) => setTimeout(resolve, 150));

let counter = 0;
async function userTurn(sessionID: string, text = "next step") {
  const messageID = `msg_${++counter}`;
  const output = {
    message: {
      id: messageID,
      sessionID,
      role: "user" as const,
      time: { created: Date.now() },
      agent: "build",
      model: { providerID: "p", modelID: "m" },
    },
    parts: [{ id: `prt_00000000001${counter}ABCDEFGHIJKLMN`, sessionID, messageID, type: "text", text }] as never[],
  };
  await hooks["chat.message"]?.({ sessionID }, output);
  return (output.parts as Array<{ metadata?: Record<string, unknown>; text?: string }>)
    .filter((part) => part.metadata?.[MARKER_KEY])
    .map((part) => part.text ?? "");
}

test("a changed rule file: new sessions get the new text, a session holding the old one gets it once with a note", async () => {
  await hooks.event?.(sessionCreated("ses_old") as never);
  expect(server.prompts[0]?.body.parts[0]?.text).toContain("Version one.");
  await project.writeRule("project", "style.md", "Version two.\n");
  await watcherLatency();

  await hooks.event?.(sessionCreated("ses_new") as never);
  const fresh = server.prompts.at(-1)!.body.parts[0]!.text;
  expect(fresh).toContain("Version two.");
  expect(fresh).not.toContain("replaces");

  const [update] = await userTurn("ses_old");
  expect(parseRulesMessage(update!)).toEqual([expect.objectContaining({ name: "style", content: "Version two." })]);
  expect(update).toContain(
    "The rule file of style changed: the version below replaces the one you were given earlier.",
  );
  expect(await userTurn("ses_old")).toEqual([]);
});

test("a new rule file reaches new sessions and the next turn of a running one", async () => {
  await hooks.event?.(sessionCreated("ses_a") as never);
  await project.writeRule("project", "added.md", "Brand new rule.\n");
  await watcherLatency();
  const [update] = await userTurn("ses_a");
  expect(parseRulesMessage(update!).map((rule) => rule.name)).toEqual(["added"]);
  await hooks.event?.(sessionCreated("ses_b") as never);
  expect(parseRulesMessage(server.prompts.at(-1)!.body.parts[0]!.text).map((rule) => rule.name)).toEqual([
    "added",
    "style",
  ]);
});

test("a deleted rule file is withdrawn from sessions that had it", async () => {
  await project.writeRule("project", "temp.md", "Temporary rule.\n");
  await watcherLatency();
  await hooks.event?.(sessionCreated("ses_a") as never);
  expect(parseRulesMessage(server.prompts.at(-1)!.body.parts[0]!.text).map((rule) => rule.name)).toEqual([
    "style",
    "temp",
  ]);
  await rm(join(project.projectRulesDir, "temp.md"));
  await watcherLatency();
  const [update] = await userTurn("ses_a");
  expect(update).toContain("The rule file of temp was deleted: that rule no longer applies.");
  await hooks.event?.(sessionCreated("ses_b") as never);
  expect(parseRulesMessage(server.prompts.at(-1)!.body.parts[0]!.text).map((rule) => rule.name)).toEqual(["style"]);
});

test("the first rules folder created after start is picked up", async () => {
  await project.writeRule("global", "late.md", "Global rule added later.\n");
  await watcherLatency();
  await hooks.event?.(sessionCreated("ses_a") as never);
  expect(parseRulesMessage(server.prompts.at(-1)!.body.parts[0]!.text).map((rule) => rule.name)).toContain("late");
});

test("a reload reports a bad rule file's warning only once, and a new problem at once", async () => {
  await project.writeRule("project", "broken.md", "---\nglobs: [\n---\nText\n");
  await watcherLatency();
  await hooks.event?.(sessionCreated("ses_a") as never);
  await project.writeRule("project", "style.md", "Version three.\n");
  await watcherLatency();
  await hooks.event?.(sessionCreated("ses_b") as never);
  await project.writeRule("project", "worse.md", "---js\nthrow 1\n---\nText\n");
  await watcherLatency();
  await hooks.event?.(sessionCreated("ses_c") as never);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const warnings = server.logs.filter((log) => log.level === "warn").map((log) => log.message);
  expect(warnings.filter((message) => message.includes("broken.md"))).toHaveLength(1);
  expect(warnings.filter((message) => message.includes("worse.md"))).toHaveLength(1);
});
