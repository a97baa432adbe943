/**
 * A stand-in for the terminal UI's `@opentui/solid` and `solid-js`, mapped to
 * these imports by vitest.config.ts as OpenCode's terminal UI maps them to its
 * own copies. Signals, memos and effects re-run what read them, as Solid's
 * do (synchronously, without batching); elements are plain objects; `draw`
 * turns a block into the lines a terminal would show.
 */

interface Computation {
  run(): void;
  sources: Set<Set<Computation>>;
  cleanups: Array<() => void>;
  disposed: boolean;
}

/** The computation reading now, and the root whose cleanups are registered outside any computation. */
let running: Computation | undefined;
let root: Array<() => void> | undefined;

export function createSignal<T>(value: T): [() => T, (value: T) => void] {
  const readers = new Set<Computation>();
  const read = () => {
    if (running) {
      readers.add(running);
      running.sources.add(readers);
    }
    return value;
  };
  const write = (next: T) => {
    if (Object.is(next, value)) return;
    value = next;
    for (const reader of [...readers]) reader.run();
  };
  return [read, write];
}

function compute(fn: () => void): Computation {
  const computation: Computation = {
    sources: new Set(),
    cleanups: [],
    disposed: false,
    run() {
      if (computation.disposed) return;
      for (const source of computation.sources) source.delete(computation);
      computation.sources.clear();
      for (const cleanup of computation.cleanups.splice(0)) cleanup();
      const outer = running;
      running = computation;
      try {
        fn();
      } finally {
        running = outer;
      }
    },
  };
  computation.run();
  root?.push(() => {
    computation.disposed = true;
    for (const source of computation.sources) source.delete(computation);
  });
  return computation;
}

export function effect(fn: () => void): void {
  compute(fn);
}

export function createMemo<T>(
  fn: () => T,
  initial: T | undefined,
  options: { equals: (a: T, b: T) => boolean },
): () => T {
  const [read, write] = createSignal(initial as T);
  let last = initial as T;
  let first = true;
  compute(() => {
    const next = fn();
    if (!first && options.equals(last, next)) return;
    first = false;
    last = next;
    write(next);
  });
  return read;
}

export function onCleanup(fn: () => void): void {
  if (running) running.cleanups.push(fn);
  else root?.push(fn);
}

/** Runs `fn` as Solid's `createRoot` does: what it starts is taken down by the dispose it is given. */
export function createRoot<T>(fn: (dispose: () => void) => T): T {
  const outer = root;
  const cleanups: Array<() => void> = [];
  root = cleanups;
  try {
    return fn(() => {
      for (const cleanup of cleanups.splice(0).reverse()) cleanup();
    });
  } finally {
    root = outer;
  }
}

export interface StandInNode {
  tag: string;
  props: Record<string, unknown>;
  children: unknown[];
}

export function createElement(tag: string): StandInNode {
  return { tag, props: {}, children: [] };
}

export function setProp(node: StandInNode, name: string, value: unknown): void {
  node.props[name] = value;
}

/** A function value is an accessor: its place among the children follows it. */
export function insert(parent: StandInNode, value: unknown): void {
  const index = parent.children.length;
  parent.children.push(undefined);
  if (typeof value === "function")
    compute(() => {
      parent.children[index] = (value as () => unknown)();
    });
  else parent.children[index] = value;
}

/** What the block shows: one line per text element, none when it is hidden. */
export function draw(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(draw);
  if (typeof node !== "object" || node === null) return [];
  const element = node as StandInNode;
  if (element.props.visible === false) return [];
  if (element.tag === "text") return [inline(element)];
  return element.children.flatMap(draw);
}

function inline(node: unknown): string {
  if (typeof node === "string") return node;
  if (Array.isArray(node)) return node.map(inline).join("");
  if (typeof node === "object" && node !== null) return (node as StandInNode).children.map(inline).join("");
  return "";
}
