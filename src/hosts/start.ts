/**
 * What every host's adapter does when OpenCode loads the plugin: read the
 * options, open the log, start the engine in the host's directory. The
 * adapter gives what differs: its log sink, its session port, its timings.
 */
import { homedir } from "node:os";
import { type EngineDeps, type RunningRulebook, startRulebook } from "../engine/rulebook.js";
import { errorText } from "../engine/timing.js";
import { createLogger, type LogSink, type Logger } from "../log.js";
import { userPluginOptionsAsync } from "../opencode-config.js";
import { parseOptions } from "../options.js";
import { nodeRuleFs } from "../discover/fs.js";
import { fileParseCache, parseCacheFolder } from "../discover/parse-cache-file.js";
import { projectRoot } from "../discover/locations.js";
import { recordFolder } from "../record/location.js";
import { recordWriter } from "../record/store.js";
import { ALL_SOURCES } from "../formats/sources.js";
import { configuredPacksAsync } from "../pack-config.js";
import { warningLine } from "../rule/warnings.js";

interface HostStart {
  /** The plugin's options as the host's config gives them. */
  rawOptions: unknown;
  sink: LogSink;
  /** The host's session port, given the plugin's log. */
  port: (log: Logger) => EngineDeps["port"];
  directory: string;
  worktree: string;
  creationGraceMs?: number;
  /** The host's words for the engine's calls, in log lines. */
  labels?: EngineDeps["labels"];
  /** Whether the model has the `rule` tool now; offered when absent. */
  ruleTool?: EngineDeps["ruleTool"];
}

/** The engine, or none when it could not start (logged): without its rules the plugin has nothing to do, and the session goes on as if it were absent. */
export async function startForHost(host: HostStart): Promise<{ log: Logger; rulebook?: RunningRulebook }> {
  const { options, errors } = parseOptions(
    host.rawOptions,
    process.env,
    ALL_SOURCES.map((source) => source.id),
  );
  const log = createLogger(host.sink, options.debug);
  for (const error of errors) log.warn(`opencode-rulebook options: ${error}`);
  try {
    // Only the user's own config may name rule folders outside the repository (docs/security.md).
    const home = homedir();
    const user = await userPluginOptionsAsync(process.env, home);
    const userExtraDirs = parseOptions(user.raw, process.env).options.extraDirs;
    const packConfig = await configuredPacksAsync(
      { env: process.env, home, directory: host.directory, worktree: host.worktree },
      options.packs,
      { user },
    );
    for (const warning of packConfig.warnings) log.warn(warningLine(warning), { path: warning.path });
    const rulebook = await startRulebook({
      port: host.port(log),
      directory: host.directory,
      worktree: host.worktree,
      env: process.env,
      home,
      fs: nodeRuleFs,
      parseStore: fileParseCache({
        folder: parseCacheFolder(process.env, home),
        project: { worktree: host.worktree, directory: host.directory },
        log,
      }),
      options,
      log,
      ...(options.record
        ? {
            record: recordWriter({
              folder: recordFolder(process.env, home),
              projectRoot: projectRoot(host.directory, host.worktree),
              log,
            }),
          }
        : {}),
      userExtraDirs,
      packs: packConfig.packs,
      labels: host.labels,
      ...(host.ruleTool === undefined ? {} : { ruleTool: host.ruleTool }),
      ...(host.creationGraceMs === undefined ? {} : { creationGraceMs: host.creationGraceMs }),
    });
    return { log, rulebook };
  } catch (error) {
    log.error(`opencode-rulebook could not start: ${errorText(error)}`);
    return { log };
  }
}
