/**
 * The simulated OpenCode 2 server as a process of its own (`opencode serve
 * --stdio`, as the terminal UI starts it): it loads the plugin, writes its
 * ready line on stdout, runs the scripted session, and writes a report to
 * the file it was given. Its stdout carries the ready line and nothing else:
 * the terminal UI reads the first line, then talks to the server over the
 * same pipe, so anything a plugin prints there breaks the start or the
 * connection (`opencode-2-server.ts` checks). Run by `node --import tsx`.
 */
import { readFileSync, writeFileSync, writeSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { type ModelReply, startSimulatedHost } from "./opencode-2-host.js";
import { READY_LINE, type ServerScript } from "./opencode-2-server.js";

const script = JSON.parse(readFileSync(process.argv[2] as string, "utf8")) as ServerScript;
const plugin = (await import(pathToFileURL(script.plugin).href)).default;
const steps = new Map<string, ModelReply[]>();
const host = await startSimulatedHost({
  plugin,
  options: script.options ?? {},
  directory: script.directory,
  failing: script.failing ?? false,
  responder: (_request, sessionID) => steps.get(sessionID)?.shift() ?? { text: "ok" },
});
// The server listens once its plugins are loaded: the worst case for a plugin that writes while loading.
writeSync(1, `${READY_LINE}\n`);

const errors: string[] = [];
const session = host.createSession();
for (const turn of script.turns) {
  steps.set(
    session,
    turn.read ? [{ toolCalls: [{ name: "read", input: { path: turn.read } }] }, { text: "read" }] : [],
  );
  await host.prompt(session, turn.text).catch((error: unknown) => errors.push(String(error)));
  if (turn.compactAfter) await host.compact(session);
}
const requests = host.requests(session);
host.deleteSession(session);
await new Promise((resolve) => setTimeout(resolve, 50));
await host.stop();
writeFileSync(
  script.report,
  JSON.stringify({
    requests: requests.map((request) => JSON.stringify(request.messages)),
    errors,
    crashed: host.crashedSteps(),
  }),
);
