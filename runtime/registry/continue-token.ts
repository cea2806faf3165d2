// Continue tokens as upstream makes them (apiserver storage/continue.go): base64url of
// {"v":"meta.cluster.io/v1","rv":<snapshot revision>,"start":"<next key, relative to the list prefix>"}.

export const CONTINUE_TOKEN_VERSION = 'meta.cluster.io/v1';

export interface ContinueToken {
  /** The snapshot revision every page of the list uses; -1 resumes against current data (after an Expired). */
  rv: number;
  /** The key to resume at, relative to the list prefix. */
  start: string;
}

export class ContinueTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContinueTokenError';
  }
}

export function encodeContinue(rv: number, startRelative: string): string {
  return Buffer.from(JSON.stringify({ v: CONTINUE_TOKEN_VERSION, rv, start: startRelative }), 'utf8').toString('base64url');
}

/** Throws ContinueTokenError with the reason (the caller prefixes `invalid continue token: `). */
export function decodeContinue(token: string): ContinueToken {
  if (!/^[A-Za-z0-9_\-=]+$/.test(token)) throw new ContinueTokenError('continue key is not valid: illegal base64 data');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new ContinueTokenError('continue key is not valid: illegal base64 data');
  }
  if (!parsed || typeof parsed !== 'object') throw new ContinueTokenError('continue key is not valid: incorrect encoded start resourceVersion');
  const o = parsed as Record<string, unknown>;
  if (o.v !== CONTINUE_TOKEN_VERSION) throw new ContinueTokenError(`continue key is not valid: server does not recognize this encoding (${String(o.v)})`);
  if (typeof o.rv !== 'number' || !Number.isSafeInteger(o.rv) || (o.rv <= 0 && o.rv !== -1)) {
    throw new ContinueTokenError(`continue key is not valid: incorrect encoded start resourceVersion (version ${CONTINUE_TOKEN_VERSION})`);
  }
  if (typeof o.start !== 'string' || o.start === '') throw new ContinueTokenError('continue key is not valid: encoded start key empty');
  // The start key is relative to the prefix: it may not climb out of it.
  if (o.start.split('/').some((seg) => seg === '..' || seg === '.')) throw new ContinueTokenError('continue key is not valid: the key does not resolve to a path inside the list');
  return { rv: o.rv, start: o.start };
}
