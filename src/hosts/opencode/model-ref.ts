/**
 * A model as OpenCode names it, in the engine's terms. OpenCode's session
 * info and OpenCode 2's requests name a model `{ providerID, id }`; OpenCode
 * 1's prompts and hooks take `{ providerID, modelID }`. Either reads here.
 */
import type { ModelRef } from "../../conditions/models.js";

export function modelRef(
  model: { providerID: string; id?: string; modelID?: string } | undefined,
): ModelRef | undefined {
  const modelID = model?.modelID ?? model?.id;
  return model && modelID ? { providerID: model.providerID, modelID } : undefined;
}
