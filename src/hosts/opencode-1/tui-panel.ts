/**
 * The Rules panel in OpenCode 1's terminal UI (`@opencode-ai/plugin/tui`): a
 * block in the session sidebar (`sidebar_content`) drawn from the session's
 * own messages as the terminal UI holds them (`api.state`, synthetic parts
 * and tool results included, updated as they arrive), so it is right after
 * a restart and in a fork, and needs nothing from the server plugin.
 *
 * The terminal UI maps `@opentui/solid` and `solid-js` to its own copies;
 * they come in as `ui` (`panel/panel-block.ts`) so that tests can draw the
 * panel without a terminal. OpenCode 1's shapes for this API live here only.
 */
import { type Logger, SERVICE } from "../../log.js";
import { hookGuards, required } from "../opencode/guarded-hooks.js";
import { currentWindow, rulesIn, type HistoryMessage } from "./history.js";
import { panelBlock, type PanelUi } from "../../panel/panel-block.js";
import { panelLines, type LineTone, type PanelLine } from "../../panel/panel-lines.js";
import { rulesPanel } from "../../panel/rules-panel.js";

/** The part of the terminal UI's plugin API the panel uses (`TuiPluginApi`, 1.18.33). */
export interface PanelApi {
  state: {
    session: { messages(sessionID: string): ReadonlyArray<HistoryMessage["info"] & { id: string }> };
    part(messageID: string): ReadonlyArray<unknown>;
  };
  theme: { readonly current: Record<string, unknown> };
  slots: { register(plugin: PanelSlotPlugin): string };
}

export interface PanelSlotPlugin {
  order: number;
  slots: { sidebar_content(context: unknown, props: { session_id: string }): unknown };
}

/** After OpenCode's Context block (100) and before MCP (200), LSP and Todo. */
export const PANEL_ORDER = 150;
/** The theme colour for each kind of line. */
const TONE_COLOURS: Record<LineTone, string> = {
  title: "text",
  heading: "text",
  rule: "text",
  reason: "textMuted",
  muted: "textMuted",
  warning: "warning",
};

/** Registers the panel; its render, called by the terminal UI, is guarded (a failure draws nothing, said once in `log`). */
export function registerRulesPanel<Node>(
  api: PanelApi,
  ui: PanelUi<Node>,
  log: Pick<Logger, "error"> = consoleLog,
): void {
  const guarded = hookGuards(log);
  api.slots.register({
    order: PANEL_ORDER,
    slots: {
      sidebar_content: guarded.sync(
        "Rules panel",
        undefined as unknown as Node,
        (_context: unknown, props: { session_id: string }) =>
          rulesBlock(api, ui, required(props.session_id, "the session_id")),
      ),
    },
  });
}

/** The terminal UI's console: OpenTUI captures what a plugin says there. */
const consoleLog = { error: (message: string) => console.warn(`${SERVICE}: ${message}`) };

/** Sessions whose messages the panel could not read (said once each). */
const unreadable = new Set<string>();

/** The panel's lines for a session, as the terminal UI holds its messages now; none when it cannot tell. */
function sessionPanelLines(api: PanelApi, sessionID: string, width: number): PanelLine[] {
  try {
    const history = api.state.session
      .messages(sessionID)
      .map((info) => ({ info, parts: api.state.part(info.id) as HistoryMessage["parts"] }));
    const markers = rulesIn(currentWindow(history).messages, { results: true }).map(({ marker }) => marker);
    return panelLines(rulesPanel(markers), width);
  } catch (error) {
    // A message of a shape this version does not know: no panel rather than a broken sidebar, said once in the terminal UI's console.
    if (!unreadable.has(sessionID)) {
      unreadable.add(sessionID);
      console.warn(
        `opencode-rulebook: the Rules panel could not read session ${sessionID}; it shows nothing for it: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return [];
  }
}

function rulesBlock<Node>(api: PanelApi, ui: PanelUi<Node>, sessionID: string): Node {
  return panelBlock(ui, {
    lines: (width) => sessionPanelLines(api, sessionID, width),
    colour: (tone) => api.theme.current[TONE_COLOURS[tone]],
  });
}
