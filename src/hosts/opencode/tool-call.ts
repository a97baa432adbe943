/** A tool call about to run, as the engine takes it: the files it names and what it would add (both OpenCode generations). */
import type { ProposedCall } from "../../enforce/proposed.js";
import { proposedChanges } from "./tool-changes.js";
import { pathsFromToolArgs } from "./tool-paths.js";

export const proposedCall = (tool: string, callID: string | undefined, args: unknown): ProposedCall => ({
  tool,
  ...(typeof callID === "string" ? { callID } : {}),
  files: pathsFromToolArgs(args),
  changes: proposedChanges(tool, args),
});
