// A request body that cannot be decoded. The message says what and where (line, column) and never
// quotes the body: a Secret's value may sit next to the error. Callers add the context upstream
// puts in front (`error decoding patch: `, `couldn't get version/kind; json parse error: `).

export type DecodeFailure = 'syntax' | 'depth' | 'number' | 'aliases';

export class DecodeError extends Error {
  readonly failure: DecodeFailure;
  readonly format: 'json' | 'yaml';

  /** What JSON.parse produced when only a number was refused (callers read its kind for the message). */
  readonly value: unknown;

  constructor(format: 'json' | 'yaml', failure: DecodeFailure, message: string, value?: unknown) {
    super(message);
    this.value = value;
    this.name = 'DecodeError';
    this.format = format;
    this.failure = failure;
  }
}
