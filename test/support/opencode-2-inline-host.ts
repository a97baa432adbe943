/**
 * The simulated OpenCode 2 host (opencode-2-host.ts) started with an inline
 * plugin, for the tests of the host itself: in a temporary folder that holds
 * `a.txt` ("file A"), with the options `{ answer: 42 }`. `stopInlineHosts`,
 * after each test, stops every host started and removes its folder.
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { PluginContext } from "../../src/hosts/opencode-2/api.js";
import { type ModelReply, type Responder, type SimulatedHost, startSimulatedHost } from "./opencode-2-host.js";
import { tempFolder } from "./temp-folder.js";

const cleanups: Array<() => Promise<void>> = [];

export async function stopInlineHosts(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

/** A plugin whose setup is the given function. */
const plugin = (setup: (ctx: PluginContext) => unknown) => ({ id: "test-plugin", setup });

export async function startInlineHost(
  setup: (ctx: PluginContext) => unknown,
  responder: Responder = () => ({ text: "ok" }),
  failing = false,
): Promise<SimulatedHost> {
  const directory = await tempFolder("oc2-host-test-");
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  await writeFile(join(directory, "a.txt"), "file A");
  const host = await startSimulatedHost({
    plugin: plugin(setup),
    options: { answer: 42 },
    directory,
    responder,
    failing,
  });
  cleanups.push(() => host.stop());
  return host;
}

/** A scripted model: the replies in order, then "done". */
export function script(...replies: ModelReply[]): Responder {
  return () => replies.shift() ?? { text: "done" };
}

export const read = (path: string): ModelReply => ({ toolCalls: [{ name: "read", input: { path } }] });
