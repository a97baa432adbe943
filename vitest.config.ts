/**
 * The terminal UI's renderer for tests: OpenCode's terminal UI gives plugins
 * its own `@opentui/solid` and `solid-js` (they are not dependencies of this
 * package); the tests give them a stand-in, so the Rules panel is drawn as
 * the terminal UI would load it.
 *
 * `npm test` leaves out test/corpus/: it reads the steering's corpus beside the
 * checkout and runs on its own, `npm run test:corpus` (vitest.corpus.config.ts).
 */
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

const standIn = fileURLToPath(new URL("./test/support/opentui-stand-in.ts", import.meta.url));

export default defineConfig({
  test: {
    alias: { "@opentui/solid": standIn, "solid-js": standIn },
    exclude: [...configDefaults.exclude, "test/corpus/**"],
  },
});
