/**
 * Issue 30, the terminal UI entry (`./tui`): every function it gives either
 * generation's terminal UI (its entries, and what they register: the
 * sidebar render, the event listener, the cleanup), called with missing or
 * malformed input, settles, says so once naming it (OpenCode 1 in its
 * console, OpenCode 2 in the plugin's log), and never fails the terminal UI.
 * The functions are taken from what the module exports and registers.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import type { PanelApi, PanelSlotPlugin } from "../../src/hosts/opencode-1/tui-panel.js";
import type { RpcDefinition } from "../../src/hosts/opencode-2/api.js";
import type { TuiContext } from "../../src/hosts/opencode-2/tui-panel.js";
import tuiEntry from "../../src/tui.js";
import { type TempProject, tempProject } from "../support/fake-opencode.js";
import { callMalformed, linesNaming } from "../support/malformed-calls.js";

type AnyHook = (...args: unknown[]) => unknown;

let project: TempProject;
beforeEach(async () => {
  project = await tempProject();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await project.cleanup();
});

test("every function the terminal UI entry gives, on both generations: settles, and logs once naming it", async () => {
  const console1: string[] = [];
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void console1.push(args.map(String).join(" ")));
  const entries = Object.entries(tuiEntry as Record<string, unknown>).filter(
    (entry): entry is [string, AnyHook] => typeof entry[1] === "function",
  );
  expect(entries.map(([key]) => key).sort()).toEqual(["setup", "tui"]);

  // What each generation's entry registers, taken as it registers it.
  const registered1: Array<[string, AnyHook]> = [];
  const api: PanelApi = {
    state: { session: { messages: () => [] }, part: () => [] },
    theme: { current: {} },
    slots: {
      register: (plugin: PanelSlotPlugin) => {
        for (const [slot, render] of Object.entries(plugin.slots)) registered1.push([slot, render as AnyHook]);
        return "slot";
      },
    },
  };
  await tuiEntry.tui(api);
  const registered2: Array<[string, AnyHook]> = [];
  const context: TuiContext = {
    client: {
      rpc: (_definition: RpcDefinition) => ({
        panel: async () => ({ markers: [] }),
        events: {
          on: (_name: string, handler: AnyHook) => {
            registered2.push(["changed listener", handler]);
            return () => undefined;
          },
        },
      }),
    },
    theme: { text: { base: "b", muted: "m" } },
    ui: {
      slot: (claim) => {
        registered2.push(["sidebar.content render", claim.render as AnyHook]);
        return () => undefined;
      },
    },
  };
  const cleanup = await tuiEntry.setup(context);
  expect(typeof cleanup).toBe("function");
  registered2.push(["cleanup", cleanup as AnyHook]);

  const v1: Array<[string, AnyHook, string]> = [
    ["tui", entries.find(([key]) => key === "tui")?.[1] as AnyHook, "tui"],
    ...registered1.map(([slot, hook]): [string, AnyHook, string] => [slot, hook, "Rules panel"]),
  ];
  const v2: Array<[string, AnyHook, string]> = [
    ["setup", entries.find(([key]) => key === "setup")?.[1] as AnyHook, "setup"],
    ...registered2.map(([what, hook]): [string, AnyHook, string] => [
      what,
      hook,
      {
        "sidebar.content render": "Rules panel",
        "changed listener": "Rules panel event",
        cleanup: "Rules panel cleanup",
      }[what] ?? what,
    ]),
  ];
  expect(v1.map(([key]) => key)).toEqual(["tui", "sidebar_content"]);
  for (const [key, hook] of [...v1, ...v2]) await callMalformed(key, hook);

  for (const [key, , name] of v1) expect(linesNaming(console1, name), `console lines naming ${key}`).toHaveLength(1);
  // OpenCode 2's lines reach the plugin's log file a little later. A listener given a malformed event, and a cleanup, have nothing to fail on.
  const file = join(project.home, ".local", "share", "opencode", "log", "opencode-rulebook.log");
  const quiet = ["changed listener", "cleanup"];
  const check = async () => {
    const log2 = (await readFile(file, "utf8")).split("\n");
    for (const [key, , name] of v2)
      expect(linesNaming(log2, name), `log lines naming ${key}`).toHaveLength(quiet.includes(key) ? 0 : 1);
  };
  await vi.waitFor(check);
  // Still once after every write under way has landed.
  await new Promise((resolve) => setTimeout(resolve, 100));
  await check();
});
