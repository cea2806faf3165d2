// Test support: the ApiError a promise rejects with.

import { ApiError } from './api-error.ts';

/** The ApiError `p` rejects with (fails when it resolves or throws anything else). */
export async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}
