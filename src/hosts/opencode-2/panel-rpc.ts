/**
 * How OpenCode 2's terminal UI learns what a session's window holds. The
 * rules are placed in each request and never stored in the session, and the
 * terminal UI cannot read the server plugin's storage (its `context.storage`
 * is its own store, keyed `plugin.<id>.<key>`: `packages/tui/src/plugin/api.tsx`
 * @1066927). OpenCode 2's channel between the two halves of a plugin is RPC:
 * the server plugin registers methods and events under its id
 * (`ctx.rpc.register`, `packages/core/src/rpc.ts`), the terminal UI calls them
 * through its client (`context.client.rpc(definition)`,
 * `packages/client/src/promise/rpc.ts`), over the same connection it already
 * has, so an attached terminal UI on another machine gets the panel too.
 *
 * `panel` answers the marks of a session's window (what the 1.x panel reads
 * from the session's messages); `changed` says a session's window changed,
 * so the terminal UI asks again.
 */
import type { RulesMarker } from "../../session/marker.js";
import { byDeadline, errorText } from "../../engine/timing.js";
import { hookGuards } from "../opencode/guarded-hooks.js";
import { SERVICE, type Logger } from "../../log.js";
import type { RpcDefinition, RpcDomain, RpcRegistration } from "./api.js";
import { REGISTER_MS, undo } from "./host-calls.js";

export const PANEL_RPC = {
  id: SERVICE,
  methods: {
    panel: {
      input: {
        type: "object",
        properties: { sessionID: { type: "string", minLength: 1, maxLength: 256 } },
        required: ["sessionID"],
      },
      output: { type: "object", properties: { markers: { type: "array" } }, required: ["markers"] },
    },
  },
  events: {
    changed: { schema: { type: "object", properties: { sessionID: { type: "string" } }, required: ["sessionID"] } },
  },
} as const satisfies RpcDefinition;

/** Changes of one burst (a request's placement, a tool result) go out as one event per session. */
const CHANGE_DELAY_MS = 25;
/** Sessions one burst names at most; past this the oldest changes are dropped (the next change of that session says it again). */
const MAX_PENDING = 1_000;

export interface PanelService {
  /** A session's window changed. */
  changed(sessionID: string): void;
  /** The session is gone: no change of it is announced any more. */
  forget(sessionID: string): void;
  /** Offers the panel's method to the terminal UI; without RPC (an older OpenCode 2) there is no panel, said once. */
  serve(rpc: RpcDomain | undefined, markers: (sessionID: string) => RulesMarker[]): Promise<void>;
  dispose(): Promise<void>;
}

export function panelService(log: Logger): PanelService {
  let registration: RpcRegistration | undefined;
  let timer: NodeJS.Timeout | undefined;
  let disposed = false;
  const pending = new Set<string>();
  const guarded = hookGuards(log);

  const flush = () => {
    timer = undefined;
    const sessions = [...pending];
    pending.clear();
    for (const sessionID of sessions)
      void registration?.events
        .emit("changed", { sessionID })
        .catch((error) =>
          log.debug(`Could not tell the terminal UI that session ${sessionID} changed: ${errorText(error)}`),
        );
  };

  return {
    changed(sessionID) {
      if (disposed || !registration) return;
      if (pending.size >= MAX_PENDING) pending.delete(pending.values().next().value as string);
      pending.add(sessionID);
      timer ??= setTimeout(flush, CHANGE_DELAY_MS);
      timer.unref?.();
    },
    forget(sessionID) {
      pending.delete(sessionID);
    },
    async serve(rpc, markers) {
      if (typeof rpc?.register !== "function") {
        log.info("This OpenCode offers plugins no RPC: the Rules panel stays empty in its terminal UI");
        return;
      }
      // Never throws: a failure answers an empty panel, and is logged once.
      const panel = guarded.async("Rules panel RPC", { markers: [] as RulesMarker[] }, async (input: unknown) => {
        const sessionID = (input as { sessionID?: unknown } | undefined)?.sessionID;
        return { markers: typeof sessionID === "string" ? markers(sessionID) : [] };
      });
      try {
        const what = "OpenCode's registration of the Rules panel's RPC";
        // Taken after it was given up (or after the plugin stopped): undone at once.
        const drop = (late: RpcRegistration) => void undo(late);
        const registering = Promise.resolve().then(() => rpc.register(PANEL_RPC, { panel }));
        const made = await byDeadline(registering, REGISTER_MS, { late: { log, what, drop } });
        if (disposed) void undo(made);
        else registration = made;
      } catch (error) {
        log.warn(
          `Could not offer the Rules panel to OpenCode's terminal UI (${errorText(error)}); rules still reach the model`,
        );
      }
    },
    async dispose() {
      disposed = true;
      clearTimeout(timer);
      pending.clear();
      await undo(registration);
      registration = undefined;
    },
  };
}
