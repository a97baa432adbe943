/**
 * The simulated OpenCode 2 host's tools (test/support/opencode-2-tools.ts and
 * its agent loop), checked with tiny inline plugins: tool results in the
 * requests, the tool hooks, long and empty results, which tools are offered.
 */
import { afterEach, describe, expect, test } from "vitest";
import type { ToolFinished } from "../../src/hosts/opencode-2/api.js";
import { read, script, startInlineHost as start, stopInlineHosts } from "../support/opencode-2-inline-host.js";

afterEach(stopInlineHosts);

describe("simulated OpenCode 2 host", () => {
  test("tool results are tool messages without an id, after their assistant message", async () => {
    const host = await start(
      () => undefined,
      script({ text: "looking", toolCalls: [{ name: "read", input: { path: "a.txt" } }] }),
    );
    const session = host.createSession();
    await host.prompt(session, "hello");
    const [user, assistant, tool, ...rest] = host.requests(session)[1]?.messages ?? [];
    const history = host.history(session);
    expect(rest).toEqual([]);
    expect(user).toMatchObject({ id: history[0]?.id, role: "user" });
    const call = assistant?.content[1] as { id: string };
    expect(assistant).toEqual({
      id: history[1]?.id,
      role: "assistant",
      content: [
        { type: "text", text: "looking" },
        { type: "tool-call", id: call.id, name: "read", input: { path: "a.txt" } },
      ],
    });
    expect(tool).toEqual({
      role: "tool",
      content: [{ type: "tool-result", id: call.id, name: "read", result: { type: "text", value: "file A" } }],
    });
    expect(tool && "id" in tool).toBe(false);
  });

  test("execute.before may change the input; execute.after's replaced result is stored and sent", async () => {
    const after: ToolFinished[] = [];
    const host = await start(
      async (ctx) => {
        await ctx.tool.hook("execute.before", (event) => {
          (event as { input: { path: string } }).input = { path: "a.txt" };
        });
        await ctx.tool.hook("execute.after", (event) => {
          after.push(structuredClone(event));
          if (event.status === "completed")
            event.result = { content: `REPLACED ${JSON.stringify(event.result.content)}` };
        });
      },
      script(read("alias.txt")),
    );
    const session = host.createSession();
    await host.prompt(session, "hello");
    const history = host.history(session);
    expect(after[0]).toMatchObject({
      tool: "read",
      sessionID: session,
      agent: "build",
      messageID: history[1]?.id,
      input: { path: "a.txt" },
      status: "completed",
    });
    // The hook sees the content normalized to an array, as OpenCode's runtime hands it over.
    const replaced = 'REPLACED [{"type":"text","text":"file A"}]';
    expect(history[1]).toMatchObject({
      tools: [
        { input: { path: "alias.txt" }, state: { status: "completed", content: [{ type: "text", text: replaced }] } },
      ],
    });
    expect(host.requests(session)[1]?.messages[2]?.content[0]).toMatchObject({
      result: { type: "text", value: replaced },
    });
  });

  test("empty content stands for the stringified output; a long result is cut to its head with a marker", async () => {
    const host = await start(
      async (ctx) => {
        await ctx.tool.transform((editor) => {
          editor.add({
            name: "long",
            description: "",
            input: {},
            options: { codemode: false },
            execute: async () => ({ content: Array.from({ length: 2500 }, (_, i) => `line ${i}`).join("\n") }),
          });
          editor.add({
            name: "json",
            description: "",
            input: {},
            options: { codemode: false },
            execute: async () => ({ content: "" }),
          });
        });
        await ctx.tool.hook("execute.after", (event) => {
          if (event.status === "completed" && event.tool === "json") event.result = { output: { n: 1 }, content: [] };
        });
      },
      script({ toolCalls: [{ name: "long", input: {} }] }, { toolCalls: [{ name: "json", input: {} }] }),
    );
    const session = host.createSession();
    await host.prompt(session, "hello");
    const [, long, json] = host.history(session);
    const content =
      long?.type === "assistant" && long.tools[0]?.state.status === "completed" ? long.tools[0].state.content : [];
    expect(content).toHaveLength(2);
    expect((content[0] as { text: string }).text.split("\n")).toHaveLength(2000);
    expect((content[1] as { text: string }).text).toMatch(/^\[showing lines 1-2000 of 2500; full output saved to /);
    expect(host.requests(session)[1]?.messages.at(-1)?.content[0]).toMatchObject({ result: { type: "content" } });
    expect(json).toMatchObject({ tools: [{ state: { content: [{ type: "text", text: '{"n":1}' }] } }] });
  });

  test("only codemode:false tools are offered; another is not callable directly", async () => {
    const calls: unknown[] = [];
    const host = await start(
      async (ctx) => {
        await ctx.tool.transform((editor) => {
          editor.add({
            name: "direct",
            description: "d",
            input: { type: "object" },
            options: { codemode: false },
            execute: async (input) => {
              calls.push(input);
              return { content: "direct ran" };
            },
          });
          editor.add({
            name: "hidden",
            description: "h",
            input: { type: "object" },
            execute: async (input) => {
              calls.push(input);
              return { content: "hidden ran" };
            },
          });
        });
      },
      script(
        { toolCalls: [{ name: "hidden", input: { x: 1 } }] },
        { toolCalls: [{ name: "direct", input: { y: 2 } }] },
      ),
    );
    const session = host.createSession();
    await host.prompt(session, "hello");
    const requests = host.requests(session);
    expect(Object.keys(requests[0]?.tools ?? {}).sort()).toEqual(["direct", "edit", "read", "shell", "write"]);
    expect(requests[1]?.messages.at(-1)?.content[0]).toMatchObject({
      name: "hidden",
      result: { type: "error", value: expect.stringContaining('No tool named "hidden"') },
    });
    expect(calls).toEqual([{ y: 2 }]);
  });
});
