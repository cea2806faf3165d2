// Unknown fields per fieldValidation: Strict 400; Warn a warning each; Ignore silently dropped.

import type { Obj } from '../../api/object.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { FieldValidation } from '../store-types.ts';
import type { ResourceContext } from './context.ts';

export function pruneUnknownFields(ctx: ResourceContext, obj: Obj, fv: FieldValidation, warnings: string[]): void {
  const unknown = ctx.validator.prune(obj);
  if (!unknown.length || fv === 'Ignore') return;
  if (fv === 'Strict') {
    const k = ctx.descriptor.kind;
    throw ApiError.badRequest(
      `${k} in version "${ctx.descriptor.version}" cannot be handled as a ${k}: strict decoding error: ${unknown.map((p) => `unknown field "${p}"`).join(', ')}`,
    );
  }
  for (const p of unknown) warnings.push(`unknown field "${p}"`);
}
