/**
 * The terminal UI's renderer for tests: OpenCode's terminal UI gives plugins
 * its own `@opentui/solid` and `solid-js` (they are not dependencies of this
 * package); the tests give them a stand-in, so the Rules panel is drawn as
 * the terminal UI would load it.
 *
 * `npm test` leaves out test/corpus/: it reads the steering's corpus beside the
 * checkout and runs on its own, `npm run test:corpus` (vitest.corpus.config.ts).
 *
 * A plugin started in a test keeps its parse cache and its record in folders
 * of the system's temporary folder, not in the user's own cache and state
 * folders (the end-to-end harness gives each OpenCode its own).
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

const standIn = fileURLToPath(new URL("./test/support/opentui-stand-in.ts", import.meta.url));

export default defineConfig({
  test: {
    alias: { "@opentui/solid": standIn, "solid-js": standIn },
    env: {
      XDG_CACHE_HOME: join(tmpdir(), "rulebook-test-cache"),
      XDG_STATE_HOME: join(tmpdir(), "rulebook-test-state"),
    },
    exclude: [...configDefaults.exclude, "test/corpus/**"],
  },
});
