/**
 * A simulated OpenCode 2 terminal UI over the simulated host: it loads a
 * plugin's terminal UI module as `packages/tui/src/plugin/context.tsx`
 * (@1066927) does, hands `setup` the part of the plugin context the Rules
 * panel uses (`packages/tui/src/plugin/api.tsx`: `client.rpc`, `theme`,
 * `ui.slot`), and draws the session sidebar's `sidebar.content` claims with
 * the OpenTUI stand-in. A module that does not decode, or a `setup` that
 * throws, is a failed plugin with an error toast; the terminal UI goes on.
 */
import type { RpcDefinition } from "../../src/hosts/opencode-2/api.js";
import type { SidebarClaim, TuiContext } from "../../src/hosts/opencode-2/tui-panel.js";
import type { SimulatedHost } from "./opencode-2-host.js";
import { createRoot, draw } from "./opentui-stand-in.js";

export type TuiPluginState = { status: "active"; id: string } | { status: "failed"; error: string };

export interface SimulatedTui {
  state: TuiPluginState;
  /** The error toasts shown ("Plugin failed: …"). */
  toasts: string[];
  /** The sidebar's plugin blocks for a session, as drawn now: one entry per claim, its lines. */
  sidebar(sessionID: string): string[][];
  stop(): Promise<void>;
}

/** The theme's colour tokens (`ResolvedTheme`, `packages/theme/src/tui/types.ts`), as names the tests can read. */
const THEME = { text: { base: "text.base", muted: "text.muted", feedback: { warning: { base: "warning.base" } } } };

/** `isPlugin`: a non-empty string `id` and a `setup` function; any other key is ignored. */
function isPlugin(value: unknown): value is { id: string; setup: (context: TuiContext) => unknown } {
  const candidate = value as { id?: unknown; setup?: unknown } | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.id === "string" &&
    candidate.id.length > 0 &&
    typeof candidate.setup === "function"
  );
}

/** `makeRpc` (`packages/client/src/promise/rpc.ts`): the definition's methods call the server; its events come from the event stream. */
function rpcClient(host: SimulatedHost, definition: RpcDefinition) {
  const methods = Object.fromEntries(
    Object.keys(definition.methods).map((name) => [name, (input: unknown) => host.rpcCall(definition.id, name, input)]),
  );
  return {
    ...methods,
    events: {
      on(name: string, handler: (event: unknown) => void) {
        if (!Object.hasOwn(definition.events, name)) throw new Error(`Unknown RPC event: ${definition.id}.${name}`);
        const type = `rpc.${definition.id}.${name}`;
        return host.onEvent((event) => {
          if (event.type === type) void Promise.resolve(handler(event)).catch(() => undefined);
        });
      },
    },
  };
}

export async function startSimulatedTui(
  host: SimulatedHost,
  module: { default?: unknown },
  spec = "opencode-rulebook",
): Promise<SimulatedTui> {
  const claims: SidebarClaim[] = [];
  const toasts: string[] = [];
  let cleanup: unknown;
  let state: TuiPluginState;
  const context: TuiContext = {
    client: { rpc: (definition) => rpcClient(host, definition) },
    theme: THEME,
    ui: {
      slot: (claim) => {
        const kinds = ["prepend", "append", "before", "after", "replace"].filter(
          (kind) => (claim as unknown as Record<string, unknown>)[kind] !== undefined,
        );
        if (kinds.length !== 1) throw new Error("Slot claim requires exactly one placement key");
        claims.push(claim);
        return () => void claims.splice(claims.indexOf(claim) >>> 0, 1);
      },
    },
  };
  const plugin = module.default;
  if (!isPlugin(plugin)) {
    state = { status: "failed", error: `Invalid V2 TUI plugin module: ${spec}` };
  } else {
    try {
      cleanup = await plugin.setup(context);
      state = { status: "active", id: plugin.id };
    } catch (error) {
      state = { status: "failed", error: error instanceof Error ? error.message : String(error) };
    }
  }
  if (state.status === "failed") toasts.push(`Plugin failed: ${spec}`);

  /** Each session's blocks, rendered once in a root (the host keeps a mounted slot), drawn on every look. */
  const mounted = new Map<string, { nodes: unknown[]; dispose: () => void }>();
  return {
    state,
    toasts,
    sidebar(sessionID) {
      let view = mounted.get(sessionID);
      if (!view) {
        view = createRoot((dispose) => ({
          nodes: claims
            .filter((claim) => claim.append === "sidebar.content")
            .map((claim) => claim.render({ sessionID })),
          dispose,
        }));
        mounted.set(sessionID, view);
      }
      return view.nodes.map(draw);
    },
    async stop() {
      for (const view of mounted.values()) view.dispose();
      mounted.clear();
      if (typeof cleanup === "function") await cleanup();
    },
  };
}
