/**
 * Plugin RPC in the simulated OpenCode 2 host, as `packages/core/src/rpc.ts`
 * (@1066927) does it: a server plugin registers a definition's methods under
 * its id (the last registration answers), a terminal UI calls them by id and
 * name, inputs and outputs are checked against the method's schemas, a
 * handler that throws answers `rpc.internal`, and an event is published to
 * every subscriber as `rpc.<id>.<name>`. JSON Schemas are checked for the
 * keywords the plugin uses (type, required, properties, minLength, maxLength).
 */
import type { RpcDefinition, RpcRegistration } from "../../src/hosts/opencode-2/api.js";

/** `Rpc.Failure` as a caller receives it. */
export interface RpcFailure {
  type: "rpc.unavailable" | "rpc.method_not_found" | "rpc.invalid_input" | "rpc.invalid_output" | "rpc.internal";
  message: string;
}

type Handlers = Record<string, (input: unknown) => Promise<unknown>>;

export function rpcRegistry(publish: (type: string, data: Record<string, unknown>) => void) {
  const registrations = new Map<string, Array<{ definition: RpcDefinition; handlers: Handlers }>>();
  const failure = (type: RpcFailure["type"], message: string): RpcFailure => ({ type, message });
  return {
    register(
      definition: RpcDefinition,
      handlers: Handlers,
      track: (registration: RpcRegistration) => void,
    ): Promise<RpcRegistration> {
      const entry = { definition, handlers };
      registrations.set(definition.id, [...(registrations.get(definition.id) ?? []), entry]);
      const registration: RpcRegistration = {
        dispose: async () => {
          const left = (registrations.get(definition.id) ?? []).filter((candidate) => candidate !== entry);
          if (left.length > 0) registrations.set(definition.id, left);
          else registrations.delete(definition.id);
        },
        events: {
          emit: async (name, data) => {
            const event = definition.events[name];
            if (!event) throw new Error(`Unknown RPC event: ${definition.id}.${name}`);
            const problem = schemaProblem(event.schema, data);
            if (problem) throw new Error(`Invalid RPC event ${definition.id}.${name}: ${problem}`);
            publish(`rpc.${definition.id}.${name}`, structuredClone(data));
          },
        },
      };
      track(registration);
      return Promise.resolve(registration);
    },
    /** `Rpc.call`: the answer's output, or a rejection with an `RpcFailure`. */
    async call(rpcID: string, method: string, input: unknown): Promise<unknown> {
      const entry = registrations.get(rpcID)?.at(-1);
      if (!entry) throw failure("rpc.unavailable", `RPC is unavailable: ${rpcID}`);
      const schema = entry.definition.methods[method];
      const handler = entry.handlers[method];
      if (!schema || !handler) throw failure("rpc.method_not_found", `Unknown RPC method: ${rpcID}.${method}`);
      const badInput = schemaProblem(schema.input, input);
      if (badInput) throw failure("rpc.invalid_input", badInput);
      let output: unknown;
      try {
        output = await handler(structuredClone(input));
      } catch {
        throw failure("rpc.internal", "RPC call failed");
      }
      const badOutput = schemaProblem(schema.output, output);
      if (badOutput) throw failure("rpc.invalid_output", badOutput);
      // It crosses a connection: JSON in, JSON out.
      return JSON.parse(JSON.stringify(output));
    },
  };
}

export type RpcRegistry = ReturnType<typeof rpcRegistry>;

/** Why `value` does not satisfy `schema`, or undefined. */
export function schemaProblem(schema: Record<string, unknown>, value: unknown, at = "value"): string | undefined {
  const type = schema.type;
  const actual = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
  if (typeof type === "string" && type !== actual) return `${at} is ${actual}, not ${type}`;
  if (typeof value === "string") {
    if (typeof schema.minLength === "number" && value.length < schema.minLength)
      return `${at} is shorter than ${schema.minLength}`;
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength)
      return `${at} is longer than ${schema.maxLength}`;
  }
  if (actual !== "object") return undefined;
  const record = value as Record<string, unknown>;
  for (const key of (schema.required as string[] | undefined) ?? [])
    if (!(key in record)) return `${at}.${key} is missing`;
  for (const [key, inner] of Object.entries(
    (schema.properties as Record<string, Record<string, unknown>> | undefined) ?? {},
  )) {
    if (key in record) {
      const problem = schemaProblem(inner, record[key], `${at}.${key}`);
      if (problem) return problem;
    }
  }
  return undefined;
}
