/**
 * opencode-rulebook's terminal UI entry (`exports["./tui"]`): the Rules panel
 * in OpenCode 1's session sidebar. OpenCode loads it from `tui.json`, which
 * `opencode plugin opencode-rulebook` writes beside `opencode.json`. A
 * terminal UI module's default export is `{ id, tui }` and nothing else.
 */
import { createElement, effect, insert, setProp } from "@opentui/solid";
import { createMemo, createSignal } from "solid-js";
import { registerRulesPanel, type PanelApi } from "./hosts/opencode-1/tui-panel.js";

export default {
  id: "opencode-rulebook",
  tui: async (api: PanelApi) => registerRulesPanel(api, { createElement, insert, setProp, effect, createSignal, createMemo }),
};
