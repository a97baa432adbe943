/**
 * The simulated OpenCode 2 host's tools (opencode-2-host.ts): the built-ins
 * it offers the model directly, each answering with its text, and the
 * registry entry of a tool, a built-in or what a plugin handed over.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { PluginTool } from "./opencode-2-revisions.js";

/** A built-in tool: it answers with its text, in the revision's shape. */
export type BuiltIn = {
  name: string;
  description: string;
  input: Record<string, unknown>;
  text(args: unknown): Promise<string>;
};
/** A registry entry: a built-in, or what a plugin handed over (which may be nothing usable). */
export type Registered =
  | { builtin: BuiltIn; plugin?: undefined }
  | { builtin?: undefined; plugin: PluginTool | undefined };

/** Only a tool with `codemode: false` is offered to the model directly; any other only inside the code tool (`packages/core/src/tool.ts` `snapshot`). */
export const direct = (tool: PluginTool | undefined) =>
  (tool?.options as { codemode?: unknown } | undefined)?.codemode === false;

/**
 * Built-in tools in `directory`, offered directly, each answering with its
 * text. The read tool's input names the path `path`.
 */
export function builtInTools(directory: string): BuiltIn[] {
  return [
    {
      name: "read",
      description: "Reads a file.",
      input: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      text: async (args) => readFile(resolve(directory, (args as { path: string }).path), "utf8"),
    },
    {
      name: "write",
      description: "Writes a file.",
      input: {
        type: "object",
        properties: { path: { type: "string" }, content: { type: "string" } },
        required: ["path", "content"],
      },
      text: async (args) => {
        const { path, content } = args as { path: string; content: string };
        await mkdir(dirname(resolve(directory, path)), { recursive: true });
        await writeFile(resolve(directory, path), content);
        return `Wrote ${path}`;
      },
    },
    {
      name: "edit",
      description: "Replaces text in a file.",
      input: {
        type: "object",
        properties: { path: { type: "string" }, oldString: { type: "string" }, newString: { type: "string" } },
        required: ["path", "oldString", "newString"],
      },
      text: async (args) => {
        const { path, oldString, newString } = args as { path: string; oldString: string; newString: string };
        const before = await readFile(resolve(directory, path), "utf8");
        if (!before.includes(oldString)) throw new Error(`oldString not found in ${path}`);
        await writeFile(resolve(directory, path), before.replace(oldString, newString));
        return `Edited ${path}`;
      },
    },
    {
      // Current 2.x cores name it `shell` (earlier ones `bash`), input `{ command, workdir?, timeout?, background? }`.
      name: "shell",
      description: "Runs a shell command in the project.",
      input: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
      text: async (args) => {
        const { command } = args as { command: string };
        return new Promise<string>((done) =>
          execFile("sh", ["-c", command], { cwd: directory, timeout: 10_000 }, (error, stdout, stderr) =>
            done(`${stdout}${stderr}${error ? `\n(exit ${error.code ?? "?"})` : ""}`),
          ),
        );
      },
    },
  ];
}
