/**
 * The Rules panel as a block of a terminal UI's sidebar: one text element per
 * line of `panel-lines.ts`, rebuilt only when the lines change, hidden when
 * there are none. Both OpenCode terminal UIs draw with OpenTUI's Solid
 * renderer; its functions come in as `ui` (the host maps the imports to its
 * own copies, and tests draw with a stand-in), the lines and colours from
 * the host's adapter.
 */
import type { LineTone, PanelLine } from "./panel-lines.js";

/** What the panel needs of `@opentui/solid` (elements) and `solid-js` (signals, memos). */
export interface PanelUi<Node> {
  createElement(tag: string): Node;
  insert(parent: Node, value: unknown): void;
  setProp(node: Node, name: string, value: unknown): void;
  effect(fn: () => void): void;
  createSignal<T>(value: T): [() => T, (value: T) => void];
  createMemo<T>(fn: () => T, initial: T | undefined, options: { equals: (a: T, b: T) => boolean }): () => T;
  /** Runs when the block is taken down (a host that gives none keeps what the block started until the plugin unloads). */
  onCleanup?(fn: () => void): void;
}

/** The width a block is drawn for until it is measured: what OpenCode 1.18's sidebar leaves a block (42 columns less its padding). */
const SIDEBAR_COLUMNS = 37;

interface PanelBlockSource {
  /** The panel's lines for a width: read inside a memo, so what it reads reactively redraws the block. */
  lines(width: number): PanelLine[];
  /** The colour of a kind of line, as the host's theme gives it. */
  colour(tone: LineTone): unknown;
}

export function panelBlock<Node>(ui: PanelUi<Node>, source: PanelBlockSource): Node {
  const [width, setWidth] = ui.createSignal(SIDEBAR_COLUMNS);
  // Recomputed as what the lines read changes; the elements change only when the lines do.
  const lines = ui.createMemo(() => source.lines(width()), [], { equals: sameLines });
  const block = ui.createElement("box");
  ui.setProp(block, "flexDirection", "column");
  ui.setProp(block, "onSizeChange", function (this: { width?: number }) {
    if (typeof this.width === "number" && this.width > 0) setWidth(this.width);
  });
  ui.effect(() => ui.setProp(block, "visible", lines().length > 0));
  ui.insert(block, () => lines().map((line) => lineElement(ui, source, line)));
  return block;
}

function lineElement<Node>(ui: PanelUi<Node>, source: PanelBlockSource, line: PanelLine): Node {
  const text = ui.createElement("text");
  ui.setProp(text, "fg", source.colour(line.tone));
  ui.setProp(text, "wrapMode", "word");
  if (line.tone === "title") {
    const bold = ui.createElement("b");
    ui.insert(bold, line.text);
    ui.insert(text, bold);
  } else ui.insert(text, line.text);
  return text;
}

const sameLines = (a: readonly PanelLine[], b: readonly PanelLine[]) =>
  a.length === b.length && a.every((line, i) => line.text === b[i]?.text && line.tone === b[i]?.tone);
