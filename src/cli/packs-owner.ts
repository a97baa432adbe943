/**
 * Whose packs a `packs` command works on: the project's, the user's (`--global`) or the administrator's (`--managed`).
 */
import { ownerPlace } from "../pack-config.js";
import type { PackPlace } from "../packs/configured.js";
import type { Trust } from "../rule/trust.js";
import { type ProjectContext, UsageError } from "./context.js";

export interface PackOwnerChoice {
  trust: Trust;
  place: PackPlace;
}

export function packOwner(project: ProjectContext, options: { global?: boolean; managed?: boolean }): PackOwnerChoice {
  if (options.global && options.managed) throw new UsageError("--global and --managed name different owners: give one");
  const trust: Trust = options.managed ? "managed" : options.global ? "user" : "repository";
  return { trust, place: ownerPlace(trust, project) };
}
