// The one error the schema compilers throw for a malformed schema: a JSON pointer and a message.

export class SchemaCompileError extends Error {
  constructor(
    /** JSON pointer into the schema (`/properties/spec/x-cluster-rules/0`). */
    readonly path: string,
    message: string,
  ) {
    super(`${path || '/'}: ${message}`);
    this.name = 'SchemaCompileError';
  }
}
