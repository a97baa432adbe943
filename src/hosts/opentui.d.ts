/**
 * The few functions the Rules panel takes from the terminal UI's own
 * `@opentui/solid` and `solid-js` (OpenCode 1 and OpenCode 2 under Bun map
 * these imports to their copies; they are not dependencies of this package).
 */
declare module "@opentui/solid" {
  export function createElement(tag: string): unknown;
  export function insert(parent: unknown, value: unknown): void;
  export function setProp(node: unknown, name: string, value: unknown): void;
  export function effect(fn: () => void): void;
}

declare module "solid-js" {
  export function createSignal<T>(value: T): [() => T, (value: T) => void];
  export function createMemo<T>(
    fn: () => T,
    initial: T | undefined,
    options: { equals: (a: T, b: T) => boolean },
  ): () => T;
  export function onCleanup(fn: () => void): void;
}
