// CEL values as this layer represents them: the engine's value classes, int ranges, runtime errors,
// declared object types and list kinds. Separate because every other file here builds on them.

import { EvaluationError, Optional as EngineOptional } from '@marcbachmann/cel-js';
import { Duration as EngineDuration, UnsignedInt as EngineUnsignedInt } from '@marcbachmann/cel-js/evaluator';

/** A CEL type as the engine spells it: `int`, `list<string>`, `map<string, dyn>`, a registered type name. */
export type CelTypeDecl = string;

export const Optional = EngineOptional;
export type Optional<T = unknown> = EngineOptional<T>;
export const Duration = EngineDuration;
export type Duration = EngineDuration;
export const UnsignedInt = EngineUnsignedInt;
export type UnsignedInt = EngineUnsignedInt;

export const MAX_INT = 9223372036854775807n;
export const MIN_INT = -9223372036854775808n;
export const MAX_UINT = 18446744073709551615n;

/** Raised by handlers for a CEL runtime error (no_such_overload, invalid argument...). */
export function celError(message: string): Error {
  return new EvaluationError(message);
}

// ---------------------------------------------------------------------------------------------
// List kinds (x-cluster-list-type) carried on runtime arrays

const LIST_KIND = Symbol('cel.listKind');
export type ListKind = { type: 'set' } | { type: 'map'; keys: string[] };

export function markList<T extends unknown[]>(list: T, kind: ListKind): T {
  Object.defineProperty(list, LIST_KIND, { value: kind, enumerable: false });
  return list;
}

export function listKindOf(v: unknown): ListKind | undefined {
  return Array.isArray(v) ? ((v as unknown as Record<symbol, ListKind | undefined>)[LIST_KIND]) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Object types

/** Base class of every object (message) type we declare; fields are Map entries keyed by CEL name. */
export class CelObject extends Map<string, unknown> {
  /** The declared type name, set on each generated subclass. */
  static typeName = 'object';
  get celTypeName(): string {
    return (this.constructor as typeof CelObject).typeName;
  }
}

export interface ObjectTypeDef {
  name: string;
  /** CEL field name -> CEL type. */
  fields: Record<string, CelTypeDecl>;
}
