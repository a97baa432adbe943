/**
 * The simulated OpenCode 2 host's events (opencode-2-host.ts): each reaches
 * every plugin stream (`ctx.event.subscribe`) and every terminal UI listener
 * later, a copy, never awaited by the host (`Bus.publish`).
 */
import type * as V2 from "../../src/hosts/opencode-2/api.js";
import { ascendingId } from "./opencode-2-history.js";

type Subscriber = { queue: V2.HostEvent[]; wake?: () => void; closed: boolean };

/** The events of a host; `stopped`: a stream asked for after the host stopped is over at once. */
export function eventBus(stopped: () => boolean) {
  const subscribers = new Set<Subscriber>();
  const uiListeners = new Set<(event: V2.HostEvent) => void>();

  /** Events reach subscribers later, never awaited by the host (`Bus.publish` → the plugin's stream). */
  function emit(type: string, data: Record<string, unknown>): void {
    const event: V2.HostEvent & { id: string; created: number } = {
      id: ascendingId("evt"),
      created: Date.now(),
      type,
      data,
    };
    for (const subscriber of subscribers)
      setImmediate(() => {
        if (subscriber.closed) return;
        subscriber.queue.push(structuredClone(event));
        subscriber.wake?.();
      });
    for (const listener of uiListeners)
      setImmediate(() => uiListeners.has(listener) && listener(structuredClone(event)));
  }

  function close(subscriber: Subscriber): void {
    subscriber.closed = true;
    subscribers.delete(subscriber);
    subscriber.wake?.();
  }

  return {
    emit,
    /** `packages/client/src/shared-events.ts` `subscribe`: buffered from the call, ended by the signal or the plugin's unload. */
    subscribe(options?: { signal?: AbortSignal }): AsyncIterable<V2.HostEvent> {
      const subscriber: Subscriber = { queue: [], closed: stopped() };
      if (!stopped()) subscribers.add(subscriber);
      if (options?.signal?.aborted) close(subscriber);
      options?.signal?.addEventListener("abort", () => close(subscriber), { once: true });
      return (async function* () {
        for (;;) {
          if (subscriber.closed) return;
          const next = subscriber.queue.shift();
          if (next) yield next;
          else await new Promise<void>((wake) => (subscriber.wake = wake));
        }
      })();
    },
    /** A terminal UI's event stream: every event, RPC events included; returns the unsubscribe. */
    onEvent(listener: (event: V2.HostEvent) => void): () => void {
      uiListeners.add(listener);
      return () => void uiListeners.delete(listener);
    },
    /** The plugin unloads: its streams end. */
    closeStreams(): void {
      for (const subscriber of [...subscribers]) close(subscriber);
    },
  };
}
