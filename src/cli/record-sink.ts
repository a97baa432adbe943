/**
 * The record for a command that adds to it (`verify`): a writer opened for
 * the command's project when the record is kept, closed (written) before the
 * command ends. What stops it from being written is said on standard error,
 * after the command's own output; it never changes the exit status.
 */
import type { Logger } from "../log.js";
import { recordFolder } from "../record/location.js";
import { recordWriter, type RecordSink } from "../record/store.js";
import type { CommandResult, ProjectContext } from "./context.js";

export async function withRecord(
  context: ProjectContext,
  work: (sink: RecordSink | undefined) => Promise<CommandResult>,
): Promise<CommandResult> {
  if (!context.options.record) return work(undefined);
  const said: string[] = [];
  const say = (message: string) => said.push(`opencode-rulebook: ${message}\n`);
  const log: Logger = {
    debugEnabled: false,
    debug: () => {},
    info: () => {},
    warn: say,
    error: say,
    flush: async () => {},
  };
  const sink = recordWriter({ folder: recordFolder(context.env, context.home), projectRoot: context.projectRoot, log });
  let outcome: CommandResult;
  try {
    outcome = await work(sink);
  } finally {
    await sink.close();
  }
  return said.length === 0 ? outcome : { ...outcome, stderr: `${outcome.stderr ?? ""}${said.join("")}` };
}
