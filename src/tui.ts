/**
 * opencode-rulebook's terminal UI entry (`exports["./tui"]`): the Rules panel
 * in the session sidebar, for both generations, as the server entry is.
 * OpenCode 1 loads this module from `tui.json` (which `opencode plugin
 * opencode-rulebook` writes) and calls `tui`; its loader refuses a module
 * with `server` beside `tui`, and ignores other keys. OpenCode 2 loads it for
 * a server plugin that has a `./tui` entry and calls `setup`; its loader
 * wants a non-empty `id` and a `setup` function, and ignores other keys
 * (`packages/tui/src/plugin/context.tsx` `isPlugin`, @1066927). Neither may
 * throw: a terminal UI without the panel is better than none.
 */
import { homedir } from "node:os";
import { withTimeout } from "./engine/timing.js";
import { hookGuards } from "./hosts/opencode/guarded-hooks.js";
import { registerRulesPanel, type PanelApi } from "./hosts/opencode-1/tui-panel.js";
import { setupRulesPanel, type TuiContext } from "./hosts/opencode-2/tui-panel.js";
import { loadPanelUi } from "./hosts/panel-ui.js";
import { fileLogSink, rulebookLogFile } from "./log-file.js";
import { createLogger, SERVICE } from "./log.js";

/** How long setup waits for the terminal UI's renderer modules; past it there is no panel. */
const PANEL_UI_MS = 5000;

/** OpenCode 2: the plugin's log file (nothing on the terminal the UI draws on), where the environment of the call puts it. */
const fileLog = () =>
  createLogger(fileLogSink(rulebookLogFile(process.env, homedir()), { stderr: () => undefined }), false);
/** OpenCode 1: its console shows what a plugin says there (OpenTUI captures it). */
const consoleLog = { error: (message: string) => console.warn(`${SERVICE}: ${message}`) };
const v1 = hookGuards(consoleLog);
const v2 = hookGuards({ error: (message, extra) => fileLog().error(message, extra) });

export default {
  id: SERVICE,
  tui: v1.async("tui", undefined, async (api: PanelApi) => {
    const ui = await withTimeout(loadPanelUi(), PANEL_UI_MS);
    if (ui) registerRulesPanel(api, ui);
    else console.warn(`${SERVICE}: the terminal UI did not give @opentui/solid and solid-js; no Rules panel`);
  }),
  setup: v2.async("setup", undefined, async (context: TuiContext) => {
    if (typeof context?.ui?.slot !== "function") throw new TypeError("the terminal UI's context has no ui.slot");
    const log = fileLog();
    const ui = await withTimeout(loadPanelUi(), PANEL_UI_MS);
    if (ui) return setupRulesPanel(context, ui, log);
    log.warn("The terminal UI did not give @opentui/solid and solid-js: no Rules panel");
    return undefined;
  }),
};
