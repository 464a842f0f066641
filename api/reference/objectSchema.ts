/**
 * The JSON Schema of an object the reference states by hand (what no zod schema describes: the
 * problem document, OAuth and JSON-RPC bodies, probes, webhook events): `required` names the
 * members that are always there.
 */
export function objectSchema(required: string[], properties: Record<string, unknown>): ObjectSchema {
  return { type: 'object', required, properties };
}

export interface ObjectSchema {
  type: 'object';
  required: string[];
  properties: Record<string, unknown>;
}
