/**
 * The rule set of a running plugin: loaded once at start, watched, and
 * reloaded on demand after a change. Discovery lines, shadowing and warnings
 * go to the log; a reload logs only warnings that are new.
 */
import type { DiscoveryContext } from "../discover/discover.js";
import { parsesDiffer, type ParseCacheEntries } from "../discover/parse-cache.js";
import type { ParseCacheStore } from "../discover/parse-cache-file.js";
import { foldersFromRoot, globalRulesDir } from "../discover/locations.js";
import { foldersToWatch, rulePlaces, watchRuleFolders } from "../discover/watch.js";
import { within } from "../discover/within.js";
import type { Logger } from "../log.js";
import { differs, type Rule } from "../rule/rule.js";
import { warningLine } from "../rule/warnings.js";
import { heldText, loadRules, type LoadedRules, type LoadOptions, sourcesRead } from "./load.js";
import { sourceLookUps } from "./looked-up.js";
import { ALL_SOURCES } from "./sources.js";

/** How long a reload waits for the look-ups under way; one that takes longer is loaded by a later reload. */
export const LOOK_UP_WAIT_MS = 2_000;

/** What a reload changed, by rule name. */
export interface RuleChanges {
  changed: string[];
  removed: string[];
}

interface LiveRules {
  current(): LoadedRules;
  /**
   * Reloads if a watched folder changed, or a look-up found a rule file, since the last call (the look-ups under way
   * are waited for first); what changed, or undefined.
   */
  refresh(): Promise<RuleChanges | undefined>;
  /** Looks up from the absolute paths a session touched (a sub-folder's `GEMINI.md`); the next refresh loads what it found. */
  lookUp(paths: readonly string[]): Promise<void>;
  close(): void;
}

/**
 * `store`: where parses are kept between starts. Between loads they are kept
 * in memory in any case, so a reload reads only the files that changed.
 */
export async function startLiveRules(
  context: DiscoveryContext,
  options: LoadOptions,
  log: Logger,
  store?: ParseCacheStore,
): Promise<LiveRules> {
  const reported = new Set<string>();
  let kept: Promise<ParseCacheEntries> | undefined = store?.load();
  const lookUps = sourceLookUps(context, sourcesRead(options));
  /** Look-ups under way, and whether one found a rule file not loaded yet. */
  const lookingUp = new Set<Promise<void>>();
  let lookedUpNew = false;
  const load = async () => {
    const before = kept;
    const result = await loadRules({ ...context, parseCache: before, lookedUp: lookUps.folders }, options);
    const parses = result.parses ?? new Map();
    kept = Promise.resolve(parses);
    // Written after the load, not awaited: the next start finds them, this one goes on at once.
    if (store && parsesDiffer((await before) ?? new Map(), parses)) void store.save(parses);
    for (const file of result.files) log.debug(`Discovered ${file.scope} rule: ${file.relPath}`, { path: file.path });
    for (const { rule, by, forbidHolds } of result.shadowed) {
      if (!forbidHolds)
        log.debug(`Rule ${rule.name} (${rule.displayPath}) is shadowed by ${by.displayPath}`, { path: rule.path });
      else if (!reported.has(`held:${rule.path}:${by.path}`)) {
        reported.add(`held:${rule.path}:${by.path}`);
        log.warn(heldText(rule, by), { path: rule.path, shadowedBy: by.path });
      }
    }
    for (const warning of result.warnings) {
      const line = warningLine(warning);
      if (reported.has(line)) continue;
      reported.add(line);
      log.warn(line, { path: warning.path, line: warning.line });
    }
    return result;
  };

  let loaded = await load();
  // Watchers only flag a change; the next hook reloads, so no event rescans the disk.
  const globalDir = globalRulesDir(context.env, context.home);
  const bases = [...foldersFromRoot(context.directory, context.worktree), context.home];
  // Where every format keeps rules, its source read or not: a rules folder created there is seen.
  const places = rulePlaces(ALL_SOURCES.flatMap((source) => (source.layout ? [source.layout] : [])));
  // A lock rewritten by `packs install` or `packs update` moves a pack: its folder is watched like a rule file's.
  const locks = (options.packs ?? []).map((pack) => pack.place.lockFile);
  const targets = () =>
    foldersToWatch(
      [...loaded.files.map((file) => file.path), ...loaded.references, ...locks],
      bases,
      [...loaded.folders, globalDir],
      places,
    );
  const initial = targets();
  const watcher = await watchRuleFolders(initial.folders, initial.filters, loaded.probed);

  return {
    current: () => loaded,
    lookUp(paths) {
      if (!lookUps.any || paths.length === 0) return Promise.resolve();
      const under = lookUps.from(paths).then(
        (found) => {
          if (found) lookedUpNew = true;
        },
        (error) => log.error(`Looking up rule files from ${paths[0]} failed: ${String(error)}`),
      );
      const tracked = under.finally(() => lookingUp.delete(tracked));
      lookingUp.add(tracked);
      return tracked;
    },
    async refresh() {
      // Bounded: a look-up stuck on a hung mount must not hold every later reload.
      if (lookingUp.size > 0) await within(Promise.all(lookingUp), LOOK_UP_WAIT_MS);
      const changed = watcher.take();
      if (!changed && !lookedUpNew) return undefined;
      lookedUpNew = false;
      const previous = new Map(loaded.rules.map((rule) => [rule.name, rule]));
      loaded = await load();
      const next = targets();
      await watcher.update(next.folders, next.filters, loaded.probed);
      const current = new Map(loaded.rules.map((rule) => [rule.name, rule]));
      const changes = {
        changed: loaded.rules
          .filter((rule) => previous.has(rule.name) && differs(previous.get(rule.name) as Rule, rule))
          .map((rule) => rule.name),
        removed: [...previous.keys()].filter((name) => !current.has(name)),
      };
      log.debug(
        `Rules reloaded: ${loaded.rules.length} rules; changed: ${changes.changed.join(", ") || "none"}; deleted: ${changes.removed.join(", ") || "none"}`,
      );
      return changes;
    },
    close: () => watcher.close(),
  };
}
