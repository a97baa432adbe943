/**
 * A tool call about to run, its arguments read once into what the engine
 * takes (both OpenCode generations): the files they name and what it would
 * do. The engine keeps it until the call's result, which reads the arguments
 * again only when the engine kept nothing.
 */
import type { ToolCall } from "../../enforce/proposed.js";
import { proposedChanges } from "./tool-changes.js";
import { pathsFromToolArgs } from "./tool-paths.js";

export const readToolCall = (tool: string, callID: unknown, args: unknown): ToolCall => ({
  tool,
  ...(typeof callID === "string" ? { callID } : {}),
  files: pathsFromToolArgs(args),
  changes: proposedChanges(tool, args),
});
