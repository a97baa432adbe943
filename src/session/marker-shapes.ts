/**
 * The shapes a stored marker's fields must have (marker.ts `asMarker`): stored values outlive versions and may be
 * corrupted, and a field of another shape is left out. Pure.
 */
import { kindOfMet, NARROWING } from "../conditions/list.js";

export const isNameList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((name) => typeof name === "string");
export const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= 0;
export const isCountPerRule = (value: unknown, rules: number): value is number[] =>
  Array.isArray(value) && value.length === rules && value.every(isCount);
const isText = (value: unknown): value is string => typeof value === "string";
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/** Two name lists of one length, each name of the first paired with the second's at its place; or neither given. */
export const isPairedWith = (names: unknown, others: unknown): boolean =>
  (names === undefined && others === undefined) ||
  (isNameList(names) && isNameList(others) && names.length === others.length);

/** A rule's `why` (marker.ts `RuleWhy`): a reason, what of its scope was met, by fact, as text, and where it is from. */
export function isStoredWhy(value: unknown): boolean {
  if (!isObject(value) || !isReason(value.reason)) return false;
  const scope = value.scope;
  if (value.from !== undefined && !isText(value.from)) return false;
  // Each scope kind's met value is stored under its fact as text (what the kind's `holds` gives).
  return (
    scope === undefined ||
    (isObject(scope) && NARROWING.every(({ fact }) => scope[fact] === undefined || isText(scope[fact])))
  );
}

/** A trigger's met value of a kind the list has, in the shape that kind stores. */
function isConditionMet(met: unknown): boolean {
  return isObject(met) && isText(met.kind) && kindOfMet(met.kind)?.isStoredMet(met) === true;
}

/** An `ActivationReason` (select/reasons.ts) of a kind every version may have stored. */
function isReason(value: unknown): boolean {
  if (!isObject(value)) return false;
  switch (value.kind) {
    case "always":
    case "rule-tool":
    case "on-request":
      return true;
    case "mention":
      return isText(value.rule);
    case "enforced":
      return (
        (value.mode === "block" || value.mode === "warn") &&
        isText(value.tool) &&
        (value.file === undefined || isText(value.file))
      );
    case "conditions":
      return Array.isArray(value.met) && value.met.length > 0 && value.met.every(isConditionMet);
    default:
      return false;
  }
}
