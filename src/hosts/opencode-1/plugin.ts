/**
 * The OpenCode 1 adapter (`@opencode-ai/plugin`): OpenCode's hooks, turned
 * into the engine's calls (`engine/contract.ts`), and the engine's answers put
 * back into OpenCode's shapes. OpenCode 1's shapes live in this folder only.
 */
import type { Hooks, Plugin } from "@opencode-ai/plugin";
import type { Part } from "@opencode-ai/sdk";
import { z } from "zod";
import type { HostLabels } from "../../engine/contract.js";
import type { RunningRulebook } from "../../engine/rulebook.js";
import type { Logger } from "../../log.js";
import { MARKER_KEY } from "../../session/marker.js";
import { attachedPath } from "../opencode/attachments.js";
import { modelRef } from "../opencode/model-ref.js";
import { hookGuards, refusal, required } from "../opencode/guarded-hooks.js";
import {
  RULE_NAME_DESCRIPTION,
  RULE_TOOL_DESCRIPTION,
  RULE_TOOL_FAILED,
  RULE_TOOL_NAME,
  requestedRuleName,
} from "../opencode/rule-tool.js";
import { readToolCall } from "../opencode/tool-call.js";
import { toolResultOf } from "../opencode/tool-touch.js";
import { startForHost } from "../start.js";
import { openCodeLogSink } from "./log-sink.js";
import { markerOf, partIdBefore } from "./parts.js";
import { sessionPort } from "./session-port.js";

/**
 * OpenCode names a forked session `<title> (fork #n)`; its history, rules included, is copied after `session.created`.
 */
const FORK_TITLE = /\(fork #\d+\)$/;

/** The engine's calls under OpenCode 1's names for them, in log lines. */
export const OPENCODE_1_LABELS: HostLabels = {
  sessionSeen: "session.created",
  compactionBegan: "experimental.session.compacting",
  windowRestarted: "experimental.compaction.autocontinue",
  compactionEnded: "session.compacted",
  fileTouched: "file.edited",
  userTurn: "chat.message",
  ownRulesStored: "chat.message",
  toolAboutToRun: "tool.execute.before",
  toolResult: "tool.execute.after",
  ruleRequested: "rule tool",
  "new-session": "session.created",
  compaction: "session.compacted",
};

export const RulebookPlugin: Plugin = async (input, rawOptions) => {
  // OpenCode gives every plugin its client and directory; without them there is nothing to serve.
  if (typeof input?.directory !== "string" || typeof input.client !== "object" || input.client === null) return {};
  const { log, rulebook } = await startForHost({
    rawOptions,
    labels: OPENCODE_1_LABELS,
    sink: openCodeLogSink(input.client),
    port: () => sessionPort(input.client),
    directory: input.directory,
    worktree: input.worktree,
  });
  return rulebook ? hooksFor(rulebook, log) : {};
};

/**
 * OpenCode 1's hooks over a running engine. Each is guarded (`guarded-hooks.ts`):
 * an odd shape from OpenCode breaks nothing, and never reaches the engine.
 */
export function hooksFor(rulebook: RunningRulebook, log: Logger): Hooks {
  const guarded = hookGuards(log);
  return {
    dispose: guarded.async("dispose", undefined, async () => rulebook.dispose()),
    event: guarded.async("event", undefined, async ({ event }: Parameters<NonNullable<Hooks["event"]>>[0]) => {
      if (event.type === "session.created") {
        const info = event.properties.info as typeof event.properties.info & {
          agent?: string;
          model?: { providerID: string; id?: string; modelID?: string };
        };
        const id = required(info.id, "session.created's info.id");
        await rulebook.sessionSeen({
          id,
          parentID: info.parentID,
          agent: info.agent,
          model: modelRef(info.model),
          hasHistory: FORK_TITLE.test(info.title ?? ""),
        });
      } else if (event.type === "session.compacted")
        await rulebook.compactionEnded(required(event.properties.sessionID, "session.compacted's sessionID"));
      else if (event.type === "session.deleted")
        rulebook.sessionGone(required(event.properties.info.id, "session.deleted's info.id"));
      else if (event.type === "file.edited")
        await rulebook.fileTouched(required(event.properties.file, "file.edited's file"));
    }),
    "chat.message": guarded.async("chat.message", undefined, async (input: ChatInput, output: ChatOutput) => {
      const sessionID = required(input.sessionID, "the sessionID");
      const own = output.parts.find((part) => markerOf(part as { metadata?: Record<string, unknown> }));
      const marker = markerOf(own as { metadata?: Record<string, unknown> } | undefined);
      if (own && marker) {
        // The plugin's own silent prompt, being stored.
        const answer = await rulebook.ownRulesStored(sessionID, marker, output.message.time.created);
        if (answer.hide) (own as { ignored?: boolean }).ignored = true;
        return;
      }
      const answer = await rulebook.userTurn({
        sessionID,
        texts: output.parts.flatMap((part) =>
          part.type === "text" && !part.synthetic && typeof part.text === "string" ? [part.text] : [],
        ),
        files: output.parts.flatMap(attachedFile),
        agent: output.message.agent ?? input.agent,
        model: modelRef(output.message.model ?? input.model),
        created: output.message.time.created,
      });
      if (answer.created !== undefined) output.message.time.created = answer.created;
      if (!answer.rules) return;
      // Before the user's words: OpenCode orders a message's parts by id.
      output.parts.unshift({
        id: partIdBefore(output.parts.map((existing) => existing.id)),
        sessionID,
        messageID: output.message.id,
        type: "text",
        text: answer.rules.text,
        synthetic: true,
        metadata: { [MARKER_KEY]: answer.rules.marker },
      });
    }),
    // Awaited inside the compaction, before its summary is written: unlike its event, never late.
    "experimental.session.compacting": guarded.async(
      "experimental.session.compacting",
      undefined,
      async (input: { sessionID: string }) => rulebook.compactionBegan(required(input.sessionID, "the sessionID")),
    ),
    // `message` is the compaction's own message: the id its window starts with in the history.
    "experimental.compaction.autocontinue": guarded.async(
      "experimental.compaction.autocontinue",
      undefined,
      async (input: Parameters<NonNullable<Hooks["experimental.compaction.autocontinue"]>>[0]) =>
        rulebook.windowRestarted(
          required(input.sessionID, "the sessionID"),
          { agent: input.agent, model: modelRef(input.model) },
          (input.message as { id?: string } | undefined)?.id,
        ),
    ),
    "tool.execute.before": guarded.async(
      "tool.execute.before",
      undefined,
      async (input: ToolInput, output: { args: unknown }) => {
        const call = readToolCall(required(input.tool, "the tool"), input.callID, output?.args);
        const verdict = await rulebook.toolAboutToRun(required(input.sessionID, "the sessionID"), call);
        // Passes the guard on purpose: OpenCode fails the call with this error, before it runs, and the model reads it
        // as the call's result.
        if (verdict?.refusal) throw refusal(verdict.refusal.text);
      },
    ),
    "tool.execute.after": guarded.async(
      "tool.execute.after",
      undefined,
      async (input: ToolInput, output: ToolOutput) => {
        const sessionID = required(input.sessionID, "the sessionID");
        // The rule tool's own answer carries its rule already.
        if (required(input.tool, "the tool") === RULE_TOOL_NAME) return;
        const result = typeof output.output === "string" ? output.output : "";
        const args = (input as { args?: unknown }).args;
        const rules = await rulebook.toolResult(sessionID, toolResultOf(input.tool, input.callID, args, result));
        if (rules === undefined) return;
        output.output = result === "" ? rules.text : `${result}\n\n${rules.text}`;
        output.metadata = { ...(isRecord(output.metadata) ? output.metadata : {}), [MARKER_KEY]: rules.marker };
      },
    ),
    tool: {
      [RULE_TOOL_NAME]: {
        description: RULE_TOOL_DESCRIPTION,
        // OpenCode 1 takes the tool's arguments as a zod schema.
        args: { name: z.string().describe(RULE_NAME_DESCRIPTION) },
        execute: guarded.async("rule tool", RULE_TOOL_FAILED, async (args: unknown, context: { sessionID: string }) => {
          const read = rulebook.ruleRequested(required(context.sessionID, "the sessionID"), requestedRuleName(args));
          // The marker in the result's metadata: the history (and the Rules panel) shows the rule is in the window.
          return read.marker ? { output: read.output, metadata: { [MARKER_KEY]: read.marker } } : read.output;
        }),
      },
    },
  };
}

type ChatInput = Parameters<NonNullable<Hooks["chat.message"]>>[0];
type ChatOutput = Parameters<NonNullable<Hooks["chat.message"]>>[1];
type ToolInput = Parameters<NonNullable<Hooks["tool.execute.before"]>>[0];
type ToolOutput = Parameters<NonNullable<Hooks["tool.execute.after"]>>[1];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A file part's path (or its `file://` URL); parts of any other shape name none. */
const attachedFile = (part: Part): string[] =>
  part.type === "file"
    ? attachedPath({ path: (part as { source?: { path?: unknown } }).source?.path, url: part.url })
    : [];
