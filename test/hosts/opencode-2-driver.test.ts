/**
 * The simulated OpenCode 2 scenario driver (test/support/opencode-2-driver.ts)
 * over a plugin: a temporary project with isolated config folders, the model
 * scripted, the requests normalized.
 */
import { existsSync, readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { PluginContext } from "../../src/hosts/opencode-2/api.js";
import { simulatedOpenCode2WithPlugin } from "../support/opencode-2-driver.js";
import { SYSTEM_PROMPT } from "../support/opencode-2-loop.js";

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("the simulated OpenCode 2 scenario driver", () => {
  test("runs a plugin in a temp project with isolated config folders, scripts the model, normalizes the requests", async () => {
    const before = { HOME: process.env.HOME, XDG: process.env.XDG_CONFIG_HOME, OCD: process.env.OPENCODE_CONFIG_DIR };
    const atSetup: Array<Record<string, unknown>> = [];
    let storageFails: boolean | undefined;
    const fake = {
      id: "fake-rulebook",
      setup: async (ctx: PluginContext) => {
        atSetup.push({
          options: ctx.options,
          home: process.env.HOME,
          xdg: process.env.XDG_CONFIG_HOME,
          ocd: process.env.OPENCODE_CONFIG_DIR,
        });
        storageFails = await ctx.storage?.get("x").then(
          () => false,
          () => true,
        );
        const rules = join(ctx.location?.directory ?? "", ".opencode/rules");
        await ctx.session.hook("context", async (event) => {
          event.system.push({ type: "text", text: `rules: ${(await readdir(rules)).sort().join(",")}` });
        });
        await ctx.tool.transform((editor) =>
          editor.add({
            name: "rule",
            description: "a rule",
            input: { type: "object" },
            options: { codemode: false },
            execute: async (input) => ({ content: `RULE ${(input as { name: string }).name}` }),
          }),
        );
      },
    };
    const driver = simulatedOpenCode2WithPlugin(fake);
    await driver.start({
      projectRules: { "a.md": "A" },
      projectFiles: { "src/x.ts": "X" },
      pluginOptions: { debug: true },
      failingClient: true,
    });
    let stopped = false;
    cleanups.push(async () => {
      if (!stopped) await driver.stop();
    });
    const project = driver.projectPath("");
    const [setupSeen] = atSetup;
    expect(setupSeen).toMatchObject({ options: { debug: true } });
    for (const key of ["home", "xdg", "ocd"]) {
      expect(setupSeen?.[key]).not.toBe(before[key === "home" ? "HOME" : key === "xdg" ? "XDG" : "OCD"]);
      expect(await readdir(String(setupSeen?.[key]))).toEqual([]);
    }
    expect(storageFails).toBe(true);

    const session = await driver.newSession();
    const seen = await driver.turn(session, "hi", [
      { read: "src/x.ts" },
      { rule: "a" },
      { write: "out.txt", content: "O" },
      { answer: "done" },
    ]);
    expect(seen).toHaveLength(4);
    expect(seen[0]?.messages).toEqual([
      { role: "system", text: `${SYSTEM_PROMPT}\nrules: a.md` },
      { role: "user", text: "hi" },
    ]);
    expect(seen[1]?.messages.slice(1)).toEqual([
      { role: "user", text: "hi" },
      { role: "assistant", text: '[tool-call read {"path":"src/x.ts"}]' },
      { role: "tool", text: "X" },
    ]);
    expect(seen[2]?.messages.at(-1)).toEqual({ role: "tool", text: "RULE a" });
    expect(seen[3]?.messages.at(-1)).toEqual({ role: "tool", text: "Wrote out.txt" });
    expect(readFileSync(driver.projectPath("out.txt"), "utf8")).toBe("O");

    expect(await driver.turn(session, "again")).toHaveLength(1);
    await driver.writeRule("b.md", "B");
    const compacted = await driver.compactThenTurn(session, "after");
    expect(compacted).toHaveLength(1);
    expect(compacted[0]?.messages[0]?.text).toContain("rules: a.md,b.md");
    expect(compacted[0]?.messages.slice(1).map((message) => message.role)).toEqual(["user", "user"]);
    expect(compacted[0]?.messages[1]?.text).toContain("SUMMARY-1");
    expect(compacted[0]?.messages[2]?.text).toBe("after");

    await driver.stop();
    stopped = true;
    expect({ HOME: process.env.HOME, XDG: process.env.XDG_CONFIG_HOME, OCD: process.env.OPENCODE_CONFIG_DIR }).toEqual(
      before,
    );
    expect(existsSync(project)).toBe(false);
  });
});
