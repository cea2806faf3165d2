// The one test for "a JSON object": not null, not an array.

/** A decoded JSON object (also the shape the registry, the schema rules and the patch code pass around). */
export type JsonObject = Record<string, unknown>;

/** Whether a value is an object and not an array or null; Date, Uint8Array and class instances count as objects too. */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
