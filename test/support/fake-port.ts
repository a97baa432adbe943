/** A session port for engine tests: it stores what it is sent as a window the engine can read back. */
import type { RulesPrompt, SessionPort } from "../../src/engine/contract.js";
import type { WindowView } from "../../src/session/session.js";

/** A port that stores what it is sent, as a window the engine can read back; `refuse` and `hang` make the next sends fail. */
export function fakePort() {
  const sent: RulesPrompt[] = [];
  const windows = new Map<string, Array<{ marker: RulesPrompt["marker"]; created: number }>>();
  const port = {
    sent,
    refuse: 0,
    hang: 0,
    reads: 0,
    async sendRules(prompt: RulesPrompt, signal: AbortSignal) {
      sent.push(prompt);
      if (port.refuse > 0) {
        port.refuse--;
        throw new Error("refused by the fake host");
      }
      if (port.hang > 0) {
        port.hang--;
        await new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
      }
      const created = 1_000 + sent.length;
      windows.set(prompt.sessionID, [...(windows.get(prompt.sessionID) ?? []), { marker: prompt.marker, created }]);
      return { created };
    },
    /** The host compacted the session: its window holds nothing of before. */
    compact(sessionID: string) {
      windows.delete(sessionID);
    },
    async readWindow(sessionID: string): Promise<WindowView> {
      port.reads++;
      return { rules: windows.get(sessionID) ?? [], choice: {}, movedOn: false };
    },
  } satisfies SessionPort & Record<string, unknown>;
  return port;
}
