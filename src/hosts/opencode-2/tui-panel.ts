/**
 * The Rules panel in OpenCode 2's terminal UI (`@opencode/plugin/tui`): a
 * block appended to the session sidebar (`sidebar.content`), drawn from what
 * the server plugin says the session's window holds (`panel-rpc.ts`), asked
 * again whenever the server says the window changed. OpenCode 2's shapes for
 * its terminal UI live here (read at `zjdCander/opencode@1066927`,
 * `packages/plugin/src/tui/context.ts`; the loader, `packages/tui/src/plugin/context.tsx`).
 *
 * Nothing here may fail the terminal UI: without RPC there is no panel (said
 * once in the plugin's log), an answer that does not come or does not parse
 * leaves the panel empty, and every call is bounded.
 */
import { asMarker, type RulesMarker } from "../../session/marker.js";
import { errorText, withTimeout } from "../../engine/timing.js";
import type { Logger } from "../../log.js";
import { hookGuards, required } from "../opencode/guarded-hooks.js";
import { panelBlock, type PanelUi } from "../../panel/panel-block.js";
import { panelLines, type LineTone } from "../../panel/panel-lines.js";
import { rulesPanel } from "../../panel/rules-panel.js";
import type { RpcDefinition } from "./api.js";
import { PANEL_RPC } from "./panel-rpc.js";

/** `Context` of a terminal UI plugin (`packages/plugin/src/tui/context.ts` @1066927), the part the panel uses. */
export interface TuiContext {
  /** `OpenCodeClient`: `rpc(definition)` reaches the server plugin registered under the definition's id. */
  readonly client: { readonly rpc?: (definition: RpcDefinition) => unknown };
  /** `ResolvedTheme` (`packages/theme/src/tui/types.ts`): colours are `text.base`, `text.muted`, `text.feedback[kind].base`. */
  readonly theme: {
    readonly text?: {
      readonly base?: unknown;
      readonly muted?: unknown;
      readonly feedback?: Readonly<Record<string, { readonly base?: unknown }>>;
    };
  };
  readonly ui: { readonly slot: (claim: SidebarClaim) => () => void };
}

/** `SlotClaim<"sidebar.content">`: `render` gets the slot's input, reactively, inside the host's Solid tree. */
export interface SidebarClaim {
  readonly append: "sidebar.content";
  readonly render: (input: { readonly sessionID: string }) => unknown;
}

/** `RpcClient` (`packages/client/src/promise/rpc.ts`) of `PANEL_RPC`. */
interface PanelClient {
  panel(input: { sessionID: string }, options?: { signal?: AbortSignal }): Promise<unknown>;
  events: { on(name: "changed", handler: (event: { data?: { sessionID?: unknown } }) => void): () => void };
}

/** How long the panel waits for the server's answer before it shows what it had. */
export const PANEL_ANSWER_MS = 3000;
/** Sessions whose failures were logged, remembered at most: one failing session is said once, a thousand are not a leak. */
const MAX_SAID = 100;

const TONE: Record<LineTone, "base" | "muted" | "warning"> = {
  title: "base",
  heading: "base",
  rule: "base",
  reason: "muted",
  muted: "muted",
  warning: "warning",
};

/** Registers the panel; the cleanup takes it down. Undefined when this OpenCode offers no way to reach the server plugin. */
export function setupRulesPanel<Node>(context: TuiContext, ui: PanelUi<Node>, log: Logger): (() => void) | undefined {
  const client = panelClient(context);
  if (!client) {
    log.warn("This OpenCode terminal UI offers plugins no RPC client: no Rules panel");
    return undefined;
  }
  const guarded = hookGuards(log);
  const listeners = new Set<(sessionID: string) => void>();
  const said = new Set<string>();
  const stopEvents = client.events.on(
    "changed",
    guarded.sync("Rules panel event", undefined, (event: { data?: { sessionID?: unknown } }) => {
      const sessionID = event?.data?.sessionID;
      if (typeof sessionID === "string") for (const listener of listeners) listener(sessionID);
    }),
  );

  /** The marks of the session's window as the server gives them; none when it does not answer. */
  const fetchMarkers = async (sessionID: string): Promise<RulesMarker[]> => {
    const controller = new AbortController();
    try {
      // Raced, not only aborted: a client that ignores the abort does not hold the panel; its late answer is dropped, said once per session.
      const late = said.has(sessionID)
        ? undefined
        : { log, what: `The server's Rules panel answer for session ${sessionID}` };
      const answer = await withTimeout(
        Promise.resolve().then(() => client.panel({ sessionID }, { signal: controller.signal })),
        PANEL_ANSWER_MS,
        late,
      );
      if (answer === undefined) throw new Error(`no answer in ${PANEL_ANSWER_MS} ms`);
      const markers = (answer as { markers?: unknown }).markers;
      // The server is this plugin, but what crosses a connection is checked.
      return Array.isArray(markers) ? markers.flatMap((marker) => asMarker(marker) ?? []) : [];
    } catch (error) {
      if (!said.has(sessionID) && said.size < MAX_SAID) {
        said.add(sessionID);
        log.warn(`The Rules panel could not read session ${sessionID} from the server: ${errorText(error)}`, {
          sessionID,
        });
      }
      return [];
    } finally {
      controller.abort();
    }
  };

  const block = (input: { readonly sessionID: string }): Node => {
    const [markers, setMarkers] = ui.createSignal<RulesMarker[]>([]);
    let shown = "";
    let asked = 0;
    const ask = (sessionID: string) => {
      const mine = ++asked;
      void fetchMarkers(sessionID).then((found) => {
        // Only the latest question's answer counts: the sidebar may have moved to another session.
        if (mine === asked) setMarkers(found);
      });
    };
    const listener = (sessionID: string) => {
      if (sessionID === shown) ask(sessionID);
    };
    listeners.add(listener);
    ui.onCleanup?.(() => listeners.delete(listener));
    // The slot's input is reactive: a new session in view asks again.
    ui.effect(() => {
      shown = input.sessionID;
      setMarkers([]);
      ask(shown);
    });
    return panelBlock(ui, {
      lines: (width) => panelLines(rulesPanel(markers()), width),
      colour: (tone) => colourOf(context, tone),
    });
  };

  // The input itself goes on, not its session read out here: the slot's input is reactive.
  const render = guarded.sync("Rules panel", undefined as unknown as Node, (input: { readonly sessionID: string }) => {
    required(input.sessionID, "the sessionID");
    return block(input);
  });
  const unslot = context.ui.slot({ append: "sidebar.content", render });
  return guarded.sync("Rules panel cleanup", undefined, () => {
    listeners.clear();
    unslot();
    stopEvents();
  });
}

function panelClient(context: TuiContext): PanelClient | undefined {
  if (typeof context?.client?.rpc !== "function") return undefined;
  const client = context.client.rpc(PANEL_RPC) as Partial<PanelClient> | undefined;
  return typeof client?.panel === "function" && typeof client.events?.on === "function"
    ? (client as PanelClient)
    : undefined;
}

function colourOf(context: TuiContext, tone: LineTone): unknown {
  const text = context.theme?.text;
  const kind = TONE[tone];
  if (kind === "warning") return text?.feedback?.warning?.base ?? text?.muted;
  return text?.[kind];
}
