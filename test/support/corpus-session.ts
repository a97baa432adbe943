/**
 * A user's first turn in a new session, driven through the session model
 * (`step`, src/session/step.ts) as the engine drives it, for the corpus table
 * test: which rules that turn brings for an agent and a prompt. The test
 * then checks the plugin's own selection (scope, keywords, budget), not a
 * copy of its matching.
 */
import { stat } from "node:fs/promises";
import { ruleSetOf } from "../../src/engine/rule-index.js";
import type { LoadedRules } from "../../src/formats/load.js";
import type { Effect } from "../../src/session/effects.js";
import type { SessionEvent } from "../../src/session/events.js";
import { NEW_SESSION, type SessionState } from "../../src/session/session.js";
import { step } from "../../src/session/step.js";

interface CorpusTurn {
  /** The project's folder (its repository root, where OpenCode was opened) and the user's home. */
  root: string;
  home: string;
  /** The OpenCode agent the user works with (`build`, `plan`, a custom one). */
  agent: string;
  prompt: string;
  /** Project-relative files the message attaches. */
  files: readonly string[];
}

/** Each session's steps end within this many: a session model asking forever is a failure, not a hang. */
const MAX_STEPS = 10;

/**
 * The names of the rules active for the turn: those its message carries and
 * those the budget left out of it (named there, readable with the `rule` tool).
 */
export async function rulesTurnBrings(
  loaded: LoadedRules,
  { root, home, agent, prompt, files }: CorpusTurn,
): Promise<Set<string>> {
  const rules = ruleSetOf(loaded, { enforce: "block" });
  const place = { directory: root, projectRoot: root, home };
  // The host meets a new session, then the user's first message comes within its grace period: that message carries
  // the rules.
  const opened = step(NEW_SESSION, { type: "seen", ignored: false, hasHistory: false, agent, rules });
  let state: SessionState = opened.state;
  let event: SessionEvent = { type: "user-turn", prompt, attachments: files, created: 1, agent, place, rules };
  for (let steps = 0; steps < MAX_STEPS; steps++) {
    const next = step(state, event);
    state = next.state;
    const asked = next.effects.filter((effect) => effect.type !== "note");
    const answer = asked.find((effect) => effect.type === "answer");
    if (answer) return new Set([...(answer.rules?.marker.rules ?? []), ...(answer.rules?.marker.leftOut ?? [])]);
    const check = asked.find((effect) => effect.type === "check-paths");
    if (!check) throw new Error(`The session asked for ${asked.map(effectName).join(", ")} and gave no answer`);
    // Paths the prompt names join the session when they exist in the project, as the engine checks them.
    const exists = await Promise.all(check.turn.named.map(({ absolute }) => stat(absolute).then(Boolean, () => false)));
    const existing = check.turn.named.filter((_, i) => exists[i]).map(({ path }) => path);
    event = { type: "paths-found", turn: check.turn, existing, rules };
  }
  throw new Error(`The session gave no answer to a turn within ${MAX_STEPS} steps`);
}

const effectName = (effect: Effect) => effect.type;
