/** What every scenario table runs on and checks on both hosts (test/e2e/scenarios.test.ts, test/e2e/enforce-scenarios.test.ts). */
import { afterAll, beforeAll, expect } from "vitest";
import { realOpenCode1 } from "./opencode-1-driver.js";
import { simulatedOpenCode2, simulatedOpenCode2At } from "./opencode-2-driver.js";
import type { HostDriver, HostSetup, SeenRequest } from "./scenario-driver.js";

/**
 * The hosts a scenario table runs on, for `describe.each`: OpenCode 1 as it
 * runs here, and the two OpenCode 2 revisions the adapter is built to (issue
 * 39): 2.0.26, and the July 2026 trunk a real V2 server was built from.
 */
export const EVERY_HOST: Array<[string, () => HostDriver]> = [
  ["OpenCode 1 (real opencode serve)", realOpenCode1],
  ["OpenCode 2.0.26 (simulated host)", simulatedOpenCode2],
  ["OpenCode 2 trunk 44b6938 (simulated host)", () => simulatedOpenCode2At("trunk")],
];

/** One host for the tests of the `describe` it is called in: started with `setup` before them, stopped after them. */
export function hostForTheTable<Host extends HostDriver>(driver: () => Host, setup: HostSetup): Host {
  const host = driver();
  beforeAll(() => host.start(setup), 60_000);
  afterAll(() => host.stop());
  return host;
}

/** Each request of a session is the one before plus new messages: the system prompt and every earlier message keep their bytes. */
export function expectEachExtendsTheLast(requests: readonly SeenRequest[]) {
  for (let i = 1; i < requests.length; i++) {
    const earlier = requests[i - 1] as SeenRequest;
    expect((requests[i] as SeenRequest).messages.slice(0, earlier.messages.length)).toEqual(earlier.messages);
  }
}

/** Everything a request held, one message per line block: what a test searches for a rule's mark. */
export const requestText = (request: SeenRequest | undefined): string =>
  (request?.messages ?? []).map((message) => message.text).join("\n");

/** What the model read of the last call: its result, and what the host placed after it (OpenCode 2 puts the plugin's rules right after the step's results). */
export function lastToolText(request: SeenRequest | undefined): string {
  const messages = request?.messages ?? [];
  const at = messages.map((message) => message.role).lastIndexOf("tool");
  return at < 0 ? "" : requestText({ messages: messages.slice(at) });
}
