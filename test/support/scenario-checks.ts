/** What every scenario table checks on both hosts (test/e2e/scenarios.test.ts, test/e2e/enforce-scenarios.test.ts). */
import { expect } from "vitest";
import type { SeenRequest } from "./scenario-driver.js";

/** Each request of a session is the one before plus new messages: the system prompt and every earlier message keep their bytes. */
export function expectEachExtendsTheLast(requests: readonly SeenRequest[]) {
  for (let i = 1; i < requests.length; i++) {
    const earlier = requests[i - 1] as SeenRequest;
    expect((requests[i] as SeenRequest).messages.slice(0, earlier.messages.length)).toEqual(earlier.messages);
  }
}
