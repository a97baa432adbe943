/** What every scenario table runs on and checks on both hosts (test/e2e/scenarios.test.ts, test/e2e/enforce-scenarios.test.ts). */
import { afterAll, beforeAll, expect } from "vitest";
import { realOpenCode1 } from "./opencode-1-driver.js";
import { simulatedOpenCode2 } from "./opencode-2-driver.js";
import type { HostDriver, HostSetup, SeenRequest } from "./scenario-driver.js";

/** The hosts a scenario table runs on, for `describe.each`. */
export const BOTH_HOSTS: Array<[string, () => HostDriver]> = [
  ["OpenCode 1 (real opencode serve)", realOpenCode1],
  ["OpenCode 2 (simulated host)", simulatedOpenCode2],
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
