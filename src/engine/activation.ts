/**
 * Which rules a session needs now: the files, mentions and words its
 * messages and tool calls bring in, and the rules message composed from them.
 */
import { composeRulesMessage, type ComposedMessage } from "../render/compose.js";
import { matchNewFiles } from "../select/active.js";
import { mentionedRuleNames } from "../select/mentions.js";
import { reasonText } from "../select/reasons.js";
import { modelName } from "../select/scope.js";
import { normalisePath, pathsFromToolArgs, pathsFromToolOutput, pathsNamedInPrompt } from "../session/working-set.js";
import { addFile, type SessionState } from "../session/state.js";
import type { Engine } from "./rulebook.js";
import { errorText, withTimeout } from "./timing.js";

/**
 * Sessions whose last look found nothing to send, with what that look saw:
 * while none of it changes, a tool call finds nothing again without composing.
 */
const quiet = new WeakMap<SessionState, Record<string, unknown>>();

/**
 * The rules the session does not hold yet, given what is now in its context.
 * Records activations (with the debug line); the caller reports what it sent.
 */
export function composeFor(engine: Engine, sessionID: string, state: SessionState, prompt?: string): ComposedMessage | undefined {
  const { list } = engine.rules();
  const activation = state.activation;
  if (activation.unmatched.length > 0) {
    // Only files new since the last look are matched: an event's cost does not grow with the working set.
    matchNewFiles(list, activation.unmatched, activation.fileMatches);
    activation.unmatched = [];
  }
  // The model's state is immutable and the activation sets only grow (a reload replaces `list`): equal counts, equal answer.
  const seen = {
    rules: list,
    delivered: state.delivery.delivered,
    files: activation.fileMatches.size,
    mentioned: activation.mentioned.size,
    activated: activation.activated.size,
    listed: state.delivery.listedOnRequest,
    scopedListed: state.delivery.listed,
    paused: state.delivery.paused,
    agent: state.agent,
    model: state.model && modelName(state.model),
  };
  const last = quiet.get(state);
  const unchanged = last !== undefined && (Object.keys(seen) as Array<keyof typeof seen>).every((key) => last[key] === seen[key]);
  if (unchanged && !prompt) return undefined;
  const composed = composeRulesMessage(
    list,
    {
      files: [],
      fileMatches: activation.fileMatches,
      prompt,
      mentioned: activation.mentioned,
      activated: activation.activated,
      workingAs: { agent: state.agent, model: state.model },
    },
    {
      delivered: state.delivery.delivered,
      listOnRequest: !state.delivery.listedOnRequest,
      listed: state.delivery.listed,
      paused: state.delivery.paused,
      maxBytes: engine.deps.options.maxMessageBytes,
    },
  );
  if (composed) quiet.delete(state);
  else quiet.set(state, seen);
  for (const { rule, reason } of composed?.included ?? []) {
    if (reason.kind !== "always" && !activation.activated.has(rule.name)) {
      activation.activated.set(rule.name, reason);
      const text = reasonText(reason);
      engine.log.debug(`Activated rule ${rule.name} for session ${sessionID}: ${text}`, { sessionID, rule: rule.name, reason: text });
    }
  }
  return composed;
}

/** Adds the files attached to a user's message, existing files named in its words, and `@rule` mentions; returns the words. */
export async function takeInPrompt(engine: Engine, sessionID: string, state: SessionState, texts: readonly string[], files: readonly string[]): Promise<string> {
  const { deps, root } = engine;
  for (const raw of files) {
    // One odd attachment (a file URL that does not decode) is that attachment's problem only.
    try {
      addFile(state.activation, normalisePath(raw, deps.directory, root));
    } catch (error) {
      engine.log.warn(`A part of a message in session ${sessionID} could not be read (${errorText(error)}); the rest of the message was`, { sessionID });
    }
  }
  const prompt = texts.join("\n");
  const names = engine.rules().names;
  for (const name of mentionedRuleNames(prompt, names)) state.activation.mentioned.add(name);
  // Paths already in the working set need no check.
  const named = pathsNamedInPrompt(prompt, names, { directory: deps.directory, projectRoot: root, home: deps.home }).filter(({ path }) => !state.activation.files.has(path));
  // A slow disk (a hung network mount) must not hold the message: paths not checked in time are left out.
  const exists = await withTimeout(
    Promise.all(
      named.map(({ absolute }) =>
        deps.fs.stat(absolute).then(
          () => true,
          () => false,
        ),
      ),
    ),
    engine.limits.pathCheckMs,
  );
  for (const [index, { path }] of named.entries()) if (exists?.[index]) addFile(state.activation, path);
  return prompt;
}

/** Adds the files a tool call names (intent: a file about to be written counts before it exists) and those its result lists. */
export function takeInToolCall(engine: Engine, state: SessionState, tool: string, args: unknown, output?: string): void {
  const { deps, root } = engine;
  for (const raw of pathsFromToolArgs(args)) addFile(state.activation, normalisePath(raw, deps.directory, root));
  if (output) for (const raw of pathsFromToolOutput(tool, output, root)) addFile(state.activation, normalisePath(raw, deps.directory, root));
}
