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
import { registerRulesPanel, type PanelApi } from "./hosts/opencode-1/tui-panel.js";
import { setupRulesPanel, type TuiContext } from "./hosts/opencode-2/tui-panel.js";
import { loadPanelUi } from "./hosts/panel-ui.js";
import { fileLogSink, rulebookLogFile } from "./log-file.js";
import { createLogger, SERVICE } from "./log.js";

export default {
  id: SERVICE,
  /** OpenCode 1: its console shows what a plugin says there (OpenTUI captures it). */
  tui: async (api: PanelApi) => {
    try {
      const ui = await loadPanelUi();
      if (ui) registerRulesPanel(api, ui);
      else console.warn(`${SERVICE}: the terminal UI did not give @opentui/solid and solid-js; no Rules panel`);
    } catch (error) {
      console.warn(`${SERVICE}: the Rules panel could not be set up: ${error instanceof Error ? error.message : String(error)}`);
    }
  },
  /** OpenCode 2: the plugin's log file (nothing on the terminal the UI draws on). */
  setup: async (context: TuiContext) => {
    const log = createLogger(fileLogSink(rulebookLogFile(process.env, homedir()), { stderr: () => undefined }), false);
    try {
      const ui = await loadPanelUi();
      if (ui) return setupRulesPanel(context, ui, log);
      log.warn("The terminal UI did not give @opentui/solid and solid-js: no Rules panel");
    } catch (error) {
      log.error(`The Rules panel could not be set up: ${error instanceof Error ? error.message : String(error)}`);
    }
    return undefined;
  },
};
