/**
 * opencode-rulebook's entry. OpenCode calls every export of this module as a
 * plugin, so it exports the plugin and nothing else; the work is in the engine.
 */
import type { Plugin } from "@opencode-ai/plugin";
import { homedir } from "node:os";
import { RULE_TOOL_DESCRIPTION, ruleToolArgs } from "./deliver/rule-tool.js";
import { startRulebook } from "./engine.js";
import { createLogger, openCodeLogSink } from "./log.js";
import { userPluginOptions } from "./opencode-config.js";
import { parseOptions } from "./options.js";
import { registerSessionReports } from "./session/reports.js";
import { nodeRuleFs } from "./sources/fs.js";
import { ALL_SOURCES } from "./sources/load.js";

export const RulebookPlugin: Plugin = async (input, rawOptions) => {
  const { options, errors } = parseOptions(rawOptions, process.env, ALL_SOURCES.map((source) => source.id));
  const log = createLogger(openCodeLogSink(input.client), options.debug);
  for (const error of errors) log.warn(`opencode-rulebook options: ${error}`);
  try {
    // Only the user's own config may name rule folders outside the repository (README, "Security").
    const userExtraDirs = parseOptions(userPluginOptions(process.env, homedir()).raw, process.env).options.extraDirs;
    const rulebook = await startRulebook({
      client: input.client,
      directory: input.directory,
      worktree: input.worktree,
      env: process.env,
      home: homedir(),
      fs: nodeRuleFs,
      options,
      log,
      userExtraDirs,
    });
    const unregister = registerSessionReports(rulebook.report);
    return {
      dispose: async () => {
        rulebook.dispose();
        unregister();
      },
      event: ({ event }) => rulebook.onEvent(event),
      "chat.message": (hookInput, output) => rulebook.onChatMessage(hookInput, output),
      "experimental.compaction.autocontinue": (hookInput) => rulebook.onCompactionAutocontinue(hookInput),
      "tool.execute.before": (hookInput, output) => rulebook.onToolBefore(hookInput, output),
      "tool.execute.after": (hookInput, output) => rulebook.onToolAfter(hookInput, output),
      tool: {
        rule: {
          description: RULE_TOOL_DESCRIPTION,
          args: ruleToolArgs,
          execute: async (args, context) => rulebook.readRule(context.sessionID, String((args as { name?: unknown }).name ?? "")),
        },
      },
    };
  } catch (error) {
    // Without its rules the plugin has nothing to do; the session goes on as if it were absent.
    log.error(`opencode-rulebook could not start: ${error instanceof Error ? error.message : String(error)}`);
    return {};
  }
};
