/**
 * For a test file that drives the engine itself against the fake OpenCode
 * server (test/http/faults, deaf-fetch): per test, a fresh server and
 * temporary project holding one always-on rule (`style.md`: "Write small
 * functions."), and the engine's log lines, emptied.
 */
import { beforeEach } from "vitest";
import type { TestEngine } from "./opencode-1-engine.js";
import { type FakeOpencode, startTestEngine, type TempProject, useFakeOpencode } from "./fake-opencode.js";

/** `made` is called with each test's server and project before it runs. */
export function useEngineOverHttp(made: (current: { server: FakeOpencode; project: TempProject }) => void) {
  const fake = useFakeOpencode();
  const logged: string[] = [];
  beforeEach(async () => {
    made(fake);
    logged.length = 0;
    await fake.project.writeRule("project", "style.md", "Write small functions.\n");
  });
  /** The engine on this test's project, its log lines into `logged`; `overrides` set its dependencies and bounds. */
  const engine = (overrides: Parameters<typeof startTestEngine>[2] = {}): Promise<TestEngine> =>
    startTestEngine(fake.project, logged, overrides);
  return { logged, engine };
}
