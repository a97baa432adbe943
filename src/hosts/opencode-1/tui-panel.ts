/**
 * The Rules panel in OpenCode 1's terminal UI (`@opencode-ai/plugin/tui`): a
 * block in the session sidebar (`sidebar_content`) drawn from the session's
 * own messages as the terminal UI holds them (`api.state`, synthetic parts
 * and tool results included, updated as they arrive), so it is right after
 * a restart and in a fork, and needs nothing from the server plugin.
 *
 * The terminal UI maps `@opentui/solid` and `solid-js` to its own copies;
 * they come in as `ui` so that tests can draw the panel without a terminal.
 * OpenCode's shapes for this API live here and in `../../tui.ts` only.
 */
import { currentWindow, rulesIn, type HistoryMessage } from "./history.js";
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

/** What the panel needs of `@opentui/solid` (elements) and `solid-js` (signals, memos). */
export interface PanelUi<Node> {
  createElement(tag: string): Node;
  insert(parent: Node, value: unknown): void;
  setProp(node: Node, name: string, value: unknown): void;
  effect(fn: () => void): void;
  createSignal<T>(value: T): [() => T, (value: T) => void];
  createMemo<T>(fn: () => T, initial: T | undefined, options: { equals: (a: T, b: T) => boolean }): () => T;
}

/** After OpenCode's Context block (100) and before MCP (200), LSP and Todo. */
export const PANEL_ORDER = 150;
/** The column OpenCode 1.18's sidebar leaves its blocks (42 wide, less its padding): the width until the block is measured. */
const SIDEBAR_COLUMNS = 37;

/** The theme colour for each kind of line. */
const TONE_COLOURS: Record<LineTone, string> = {
  title: "text",
  heading: "text",
  rule: "text",
  reason: "textMuted",
  muted: "textMuted",
  warning: "warning",
};

export function registerRulesPanel<Node>(api: PanelApi, ui: PanelUi<Node>): void {
  api.slots.register({
    order: PANEL_ORDER,
    slots: {
      sidebar_content: (_context, props) => rulesBlock(api, ui, props.session_id),
    },
  });
}

/** Sessions whose messages the panel could not read (said once each). */
const unreadable = new Set<string>();

/** The panel's lines for a session, as the terminal UI holds its messages now; none when it cannot tell. */
export function sessionPanelLines(api: PanelApi, sessionID: string, width: number): PanelLine[] {
  try {
    const history = api.state.session.messages(sessionID).map((info) => ({ info, parts: api.state.part(info.id) as HistoryMessage["parts"] }));
    const markers = rulesIn(currentWindow(history).messages, { results: true }).map(({ marker }) => marker);
    return panelLines(rulesPanel(markers), width);
  } catch (error) {
    // A message of a shape this version does not know: no panel rather than a broken sidebar, said once in the terminal UI's console.
    if (!unreadable.has(sessionID)) {
      unreadable.add(sessionID);
      console.warn(`opencode-rulebook: the Rules panel could not read session ${sessionID}; it shows nothing for it: ${error instanceof Error ? error.message : String(error)}`);
    }
    return [];
  }
}

function rulesBlock<Node>(api: PanelApi, ui: PanelUi<Node>, sessionID: string): Node {
  const [width, setWidth] = ui.createSignal(SIDEBAR_COLUMNS);
  // Recomputed as messages stream in; the lines, and so the elements, change only when the panel does.
  const lines = ui.createMemo(() => sessionPanelLines(api, sessionID, width()), [], { equals: sameLines });
  const block = ui.createElement("box");
  ui.setProp(block, "flexDirection", "column");
  ui.setProp(block, "onSizeChange", function (this: { width?: number }) {
    if (typeof this.width === "number" && this.width > 0) setWidth(this.width);
  });
  ui.effect(() => ui.setProp(block, "visible", lines().length > 0));
  ui.insert(block, () => lines().map((line) => lineElement(api, ui, line)));
  return block;
}

function lineElement<Node>(api: PanelApi, ui: PanelUi<Node>, line: PanelLine): Node {
  const text = ui.createElement("text");
  ui.setProp(text, "fg", api.theme.current[TONE_COLOURS[line.tone]]);
  ui.setProp(text, "wrapMode", "word");
  if (line.tone === "title") {
    const bold = ui.createElement("b");
    ui.insert(bold, line.text);
    ui.insert(text, bold);
  } else ui.insert(text, line.text);
  return text;
}

const sameLines = (a: readonly PanelLine[], b: readonly PanelLine[]) => a.length === b.length && a.every((line, i) => line.text === b[i]?.text && line.tone === b[i]?.tone);
