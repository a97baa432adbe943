/**
 * A tiny OpenCode test plugin ("probe") that appends one JSON line per hook
 * call to a log file, so e2e tests can see what OpenCode delivered to plugins
 * (events, chat.message, tool hooks, system transform, compaction) without
 * depending on the plugin under test. Plain ESM, no imports beyond node:fs.
 */
import fs from "node:fs";

export interface ProbeRecord {
  /** Date.now() when the hook ran. */
  t: number;
  /** "init", "event", "chat.message", "tool.execute.before", ... */
  hook: string;
  [key: string]: unknown;
}

/** Source of the probe plugin module, logging to `logFile` (absolute path). */
export function probePluginSource(logFile: string): string {
  return `// e2e probe plugin: logs hook calls as JSON lines
import fs from "node:fs";
const LOG = ${JSON.stringify(logFile)};
const rec = (hook, data) => {
  try { fs.appendFileSync(LOG, JSON.stringify({ t: Date.now(), hook, ...data }) + "\\n"); } catch {}
};
const sid = (p) => p?.sessionID ?? p?.info?.sessionID ?? p?.part?.sessionID ?? (p?.info?.id?.startsWith?.("ses_") ? p.info.id : undefined);
export const E2EProbe = async (ctx, options) => {
  rec("init", { directory: ctx.directory, worktree: ctx.worktree, options });
  return {
    event: async ({ event }) => rec("event", { type: event.type, sessionID: sid(event.properties) }),
    "chat.message": async (input, output) =>
      rec("chat.message", {
        sessionID: input.sessionID,
        agent: input.agent,
        text: (output.parts ?? []).filter((p) => p.type === "text").map((p) => p.text).join(""),
      }),
    "tool.execute.before": async (input, output) => rec("tool.execute.before", { sessionID: input.sessionID, tool: input.tool, callID: input.callID, args: output.args }),
    "tool.execute.after": async (input, output) => rec("tool.execute.after", { sessionID: input.sessionID, tool: input.tool, callID: input.callID, title: output.title }),
    "experimental.chat.system.transform": async (input, output) => rec("experimental.chat.system.transform", { sessionID: input.sessionID, systemCount: output.system?.length }),
    "experimental.session.compacting": async (input) => rec("experimental.session.compacting", { sessionID: input.sessionID }),
  };
};
`;
}

/** Parsed probe log (empty when nothing was logged yet). */
export function readProbe(logFile: string): ProbeRecord[] {
  let text: string;
  try {
    text = fs.readFileSync(logFile, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ProbeRecord);
}
