/** What a walk is asked to do (WalkOptions) and what it finds (Walk). */
import type { Dirent } from "node:fs";
import type { FileVersion } from "./fs.js";
import type { RuleWarning } from "../rule/warnings.js";
import type { IgnoreChain } from "./gitignore.js";
import type { Boundary } from "../rule/trust.js";
import type { WalkBudget } from "./walk-limits.js";

interface WalkedFile {
  path: string;
  /** Relative to the folder walked, POSIX separators: `sub/name.md`. */
  relPath: string;
  size: number;
  version?: FileVersion;
}

export interface Walk {
  files: WalkedFile[];
  warnings: RuleWarning[];
  /** The folder itself lies outside the boundary: nothing in it was read. */
  refused?: boolean;
}

export interface WalkOptions {
  /** Which files are returned; default: `.md` and `.mdc` files. */
  accept?: (name: string) => boolean;
  /** Which sub-folders are entered; default: all. */
  enter?: (name: string) => boolean;
  /** Absent: every symlink is followed (the user's own folders). */
  boundary?: Boundary;
  budget?: WalkBudget;
  /**
   * True: hidden sub-folders are entered too (those `enter` allows); hidden files are still not returned. Default:
   * false.
   */
  hiddenFolders?: boolean;
  /** False: symlinks are passed over, neither entered nor returned (a walk of the project's tree). Default: true. */
  followLinks?: boolean;
  /** Folders this many levels below the root are not read; default MAX_DEPTH. */
  maxDepth?: number;
  /**
   * Depth first (the default: in name order, a sub-folder's files where it stands) or breadth first (shallow folders
   * first).
   */
  order?: "depth" | "breadth";
  /**
   * Sees each folder read (`relPath` from the root, POSIX), with all its entries (hidden ones too) in name order;
   * returning false ends the walk.
   */
  onFolder?: (dir: string, relPath: string, entries: readonly Dirent[]) => unknown;
  /**
   * Present: sub-folders git ignores are not entered. The ignore files in
   * force at the root (`ignoresAbove`); each folder's own `.gitignore` is
   * read with its entries.
   */
  gitignore?: IgnoreChain;
}
