// The schema compiler: turns a Schema (OpenAPI 3.0 / JSONSchemaProps with x-cluster-* extensions)
// into closures that validate, default and prune objects. Keyword errors use kube-openapi's wording
// as apiextensions-apiserver reports them.
import type {
  CompileOptions, CompiledCelRule, CompiledValidator, FieldError, FieldErrorReason, RuleSpec, Schema,
} from './types.ts';
import { CelCompileError } from './types.ts';
import { ValidationContext } from './context.ts';
import { fieldErr, goFloat, NIL_COLLECTION } from './errors.ts';
import { numberFormat, stringFormat } from './formats.ts';
import { validateEmbeddedResource, validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import { getRule } from './rules/index.ts';
import type { CompiledRule, RuleCheck, RuleEnv } from './rules/types.ts';
import { canonicalJSON, deepEqual, hasOwn, isObject } from './rules/util.ts';
import { fmtBound, SKIP_BESIDE_REF, ptrEscape, EMPTY_ARRAY, reportsAbsence, knownReason, goValueAt, parseFieldPath, applyDefaults, prune } from './compile-shared.ts';
import { SchemaCompileError } from './compile-error.ts';
import { dataType, mapKeyOf, runeCount } from './codegen-runtime.ts';

export { SchemaCompileError };


type Check = (v: unknown, old: unknown, ctx: ValidationContext) => void;

/** One compiled schema node. Structural fields drive defaulting and pruning. */
interface CNode {
  /** The node's own schema (for a `$ref` wrapper: the local keywords beside `$ref`). */
  local: Schema;
  /** The schema that defines the structure (the referenced definition for a `$ref`). */
  schema: Schema;
  validate: Check;
  props: Map<string, CNode> | null;
  additional: CNode | null;
  /** additionalProperties: true (keep unknown keys, no schema). */
  additionalAny: boolean;
  items: CNode | null;
  preserve: boolean;
  embedded: boolean;
  /** The node's $ref target when it is a wrapper. */
  target: CNode | null;
  /** Checks its parent runs (with the value undefined) when this property is absent. */
  absent: RuleCheck[];
  /** The list-map keys, when x-cluster-list-type is map. */
  mapKeys: string[] | null;
  /** True when the subtree holds a default (to skip defaulting walks). */
  hasDefaults: boolean;
  /** A named definition (reached through `$ref`). */
  isDef: boolean;
}

const TYPE_PRED: Record<string, (v: unknown) => boolean> = {
  object: isObject,
  array: Array.isArray,
  string: (v) => typeof v === 'string',
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
};

function jsonQuote(s: string): string {
  return JSON.stringify(s);
}

export function compileSchema(schema: Schema, options: CompileOptions = {}): CompiledValidator {
  const definitions = options.definitions ?? {};
  const featureGates = options.featureGates ?? {};
  const defNodes = new Map<string, CNode>();
  const cel = options.cel;
  const celErrorValue = options.celErrorValue ?? 'type';

  function refName(ref: string, ptr: string): string {
    const m = /#\/(?:components\/schemas|definitions)\/([^/]+)$/.exec(ref);
    if (!m) throw new SchemaCompileError(ptr + '/$ref', `unsupported $ref ${JSON.stringify(ref)}: expected '#/components/schemas/<Name>'`);
    const name = decodeURIComponent(m[1]).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!hasOwn(definitions, name)) throw new SchemaCompileError(ptr + '/$ref', `$ref to unknown definition ${JSON.stringify(name)}`);
    return name;
  }

  /** For the local keywords of a $ref wrapper: the schema its rules are compiled against. */
  const ruleScopes = new WeakMap<Schema, Schema>();

  function resolve(s: Schema): Schema {
    let cur = s;
    for (let i = 0; i < 64 && cur.$ref; i++) {
      const m = /#\/(?:components\/schemas|definitions)\/([^/]+)$/.exec(cur.$ref);
      if (!m || !hasOwn(definitions, m[1])) return cur;
      cur = definitions[m[1]];
    }
    return cur;
  }

  const env: RuleEnv = { featureGates, resolve };

  function newNode(local: Schema, s: Schema): CNode {
    return {
      local, schema: s, validate: () => {}, props: null, additional: null, additionalAny: false, items: null,
      preserve: false, embedded: false, target: null, absent: [], mapKeys: null, hasDefaults: false, isDef: false,
    };
  }

  function compileDef(name: string): CNode {
    const existing = defNodes.get(name);
    if (existing) return existing;
    const s = definitions[name];
    const node = newNode(s, s);
    node.isDef = true;
    defNodes.set(name, node);
    build(node, s, `/components/schemas/${ptrEscape(name)}`, false);
    return node;
  }

  function compileNode(s: Schema, ptr: string, isRoot = false): CNode {
    if (!isObject(s)) throw new SchemaCompileError(ptr, 'schema must be an object');
    if (s.$ref !== undefined) {
      if (typeof s.$ref !== 'string') throw new SchemaCompileError(ptr + '/$ref', '$ref must be a string');
      const target = compileDef(refName(s.$ref, ptr));
      const extraKeys = Object.keys(s).filter((k) => !SKIP_BESIDE_REF.has(k));
      if (extraKeys.length === 0 && !isRoot) return target;
      // a wrapper: the target's structure plus local keywords (rules, default, validations...)
      const w = newNode(s, target.schema);
      w.target = target;
      const local: Schema = {};
      for (const k of extraKeys) (local as Record<string, unknown>)[k] = (s as Record<string, unknown>)[k];
      // Rules beside a $ref see the referenced structure (their fields and CEL types live there).
      ruleScopes.set(local, { ...target.schema, ...local });
      const extra = newNode(local, local);
      build(extra, local, ptr, isRoot);
      w.absent = extra.absent;
      w.hasDefaults = target.hasDefaults || local.default !== undefined;
      w.validate = (v, old, ctx) => {
        target.validate(v, old, ctx);
        extra.validate(v, old, ctx);
      };
      return w;
    }
    const node = newNode(s, s);
    build(node, s, ptr, isRoot);
    return node;
  }

  function compileRules(s: Schema, ptr: string): CompiledRule[] {
    const specs: RuleSpec[] = [];
    if (s['x-cluster-immutable'] === true) specs.push({ rule: 'immutable' });
    const rules = s['x-cluster-rules'];
    if (rules !== undefined && !Array.isArray(rules)) throw new SchemaCompileError(ptr + '/x-cluster-rules', 'x-cluster-rules must be a list');
    const out: CompiledRule[] = [];
    const all = [...specs.map((r) => [r, ptr + '/x-cluster-immutable'] as const), ...(rules ?? []).map((r, i) => [r, `${ptr}/x-cluster-rules/${i}`] as const)];
    for (const [r, rp] of all) {
      if (!isObject(r) || typeof r.rule !== 'string') throw new SchemaCompileError(rp, 'a rule must be an object with a string `rule`');
      const kind = getRule(r.rule);
      if (!kind) throw new SchemaCompileError(rp, `unknown rule kind ${JSON.stringify(r.rule)}`);
      const node = ruleScopes.get(s) ?? s;
      const problem = kind.checkParams(r, node, env);
      if (problem) throw new SchemaCompileError(rp, `rule ${r.rule}: ${problem}`);
      const c = kind.compile(r, node, env);
      if (c) out.push(c);
    }
    return out;
  }

  function compileCel(s: Schema, ptr: string): Check | null {
    const rules = s['x-cluster-validations'];
    if (rules === undefined) return null;
    if (!Array.isArray(rules)) throw new SchemaCompileError(ptr + '/x-cluster-validations', 'x-cluster-validations must be a list');
    if (rules.length === 0) return null;
    if (!cel) throw new SchemaCompileError(ptr + '/x-cluster-validations', 'the schema has CEL rules (x-cluster-validations) but no CEL engine was given');
    const scope = ruleScopes.get(s) ?? resolve(s);
    const typeValue = s['x-cluster-int-or-string'] ? 'integer-or-string' : scope.type ?? '';
    const compiled: { rule: CompiledCelRule; text: string; fieldPath: string[] | null; optionalOld: boolean; reason?: string; message?: string }[] = [];
    rules.forEach((r, i) => {
      const rp = `${ptr}/x-cluster-validations/${i}`;
      if (!isObject(r) || typeof r.rule !== 'string') throw new SchemaCompileError(rp, 'a validation rule must have a string `rule`');
      let c: CompiledCelRule;
      try {
        c = cel.compileRule(r, scope, definitions);
      } catch (e) {
        const msg = e instanceof CelCompileError || e instanceof Error ? e.message : String(e);
        throw new SchemaCompileError(rp + '/rule', `compilation failed: ${msg}`);
      }
      compiled.push({
        rule: c, text: r.rule.trim(), fieldPath: r.fieldPath ? parseFieldPath(r.fieldPath, rp) : null,
        optionalOld: r.optionalOldSelf === true, reason: r.reason, message: r.message,
      });
    });
    return (v, old, ctx) => {
      for (const c of compiled) {
        if (c.rule.isTransitionRule && !c.optionalOld && (!ctx.update || old === undefined)) continue;
        const res = c.rule.evaluate(v, old);
        if (res.ok) continue;
        let field = ctx.path();
        if ('error' in res) {
          ctx.add(fieldErr.invalid(field, celErrorValue === 'value' ? v : typeValue, res.error));
          continue;
        }
        const fp = res.fieldPath ? parseFieldPath(res.fieldPath, ptr) : c.fieldPath;
        if (fp) for (const seg of fp) field = field === '' ? seg : seg.startsWith('[') ? field + seg : `${field}.${seg}`;
        const reason: FieldErrorReason = res.reason ?? (c.reason as FieldErrorReason | undefined) ?? 'FieldValueInvalid';
        // An explicit `message: ''` (built-in rules only) means a bare reason, e.g. `Required value`.
        const message = res.message || (c.message === '' ? '' : c.message || `failed rule: ${c.text}`);
        // CRDs report the schema type as the value (upstream apiextensions); built-in types report the value.
        const shown = celErrorValue === 'value' ? goValueAt(v, fp, scope, resolve) : typeValue;
        ctx.add(fieldErr.ofReason(field, knownReason(reason), shown, message));
      }
    };
  }

  function build(node: CNode, s: Schema, ptr: string, isRoot: boolean): void {
    const checks: Check[] = [];
    const type = s.type;
    if (type !== undefined && !hasOwn(TYPE_PRED, type)) throw new SchemaCompileError(ptr + '/type', `unknown type ${JSON.stringify(type)}`);
    const intOrString = s['x-cluster-int-or-string'] === true;
    const typeOk: ((v: unknown) => boolean) | null = intOrString
      ? (v) => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v))
      : type ? TYPE_PRED[type] : null;
    const typeLabel = intOrString ? 'integer,string' : type ?? '';
    const nullable = s.nullable === true;
    node.preserve = s['x-cluster-preserve-unknown-fields'] === true;
    node.embedded = s['x-cluster-embedded-resource'] === true;

    // ---- enum
    if (s.enum !== undefined) {
      if (!Array.isArray(s.enum)) throw new SchemaCompileError(ptr + '/enum', 'enum must be a list');
      const values = s.enum;
      const prim = new Set(values.filter((x) => typeof x !== 'object' || x === null));
      const complex = values.filter((x) => typeof x === 'object' && x !== null);
      const shown = values.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
      checks.push((v, _o, ctx) => {
        if (prim.has(v)) return;
        if (complex.length && typeof v === 'object' && complex.some((c) => deepEqual(c, v))) return;
        ctx.add(fieldErr.notSupported(ctx.path(), v, shown));
      });
    }

    // ---- strings
    const strChecks: ((v: string, ctx: ValidationContext) => void)[] = [];
    if (s.minLength !== undefined) {
      const min = num(s.minLength, ptr + '/minLength');
      strChecks.push((v, ctx) => {
        if (v.length < min || runeCount(v) < min) {
          if (runeCount(v) >= min) return;
          const p = ctx.path();
          ctx.add(fieldErr.invalid(p, v, `${p} in body should be at least ${min} chars long`));
        }
      });
    }
    if (s.maxLength !== undefined) {
      const max = num(s.maxLength, ptr + '/maxLength');
      strChecks.push((v, ctx) => {
        if (v.length > max && runeCount(v) > max) ctx.add(fieldErr.tooLong(ctx.path(), max));
      });
    }
    if (s.pattern !== undefined) {
      let re: RegExp;
      try {
        re = new RegExp(s.pattern, 'u');
      } catch (e) {
        try {
          re = new RegExp(s.pattern);
        } catch {
          throw new SchemaCompileError(ptr + '/pattern', `invalid pattern: ${(e as Error).message}`);
        }
      }
      const pattern = s.pattern;
      strChecks.push((v, ctx) => {
        if (!re.test(v)) {
          const p = ctx.path();
          ctx.add(fieldErr.invalid(p, v, `${p} in body should match '${pattern}'`));
        }
      });
    }
    if (s.format !== undefined) {
      const fname = s.format;
      const sf = stringFormat(fname);
      if (sf && (type === 'string' || type === undefined || intOrString)) {
        strChecks.push((v, ctx) => {
          if (!sf(v)) {
            const p = ctx.path();
            ctx.add(fieldErr.typeInvalid(p, v, `${p} in body must be of type ${fname}: ${jsonQuote(v)}`));
          }
        });
      }
    }
    if (strChecks.length) {
      checks.push((v, _o, ctx) => {
        if (typeof v === 'string') for (const c of strChecks) c(v, ctx);
      });
    }

    // ---- numbers
    const numChecks: ((v: number, ctx: ValidationContext) => void)[] = [];
    if (s.minimum !== undefined) {
      const min = num(s.minimum, ptr + '/minimum');
      const exc = s.exclusiveMinimum === true;
      numChecks.push((v, ctx) => {
        if (exc ? v <= min : v < min) {
          const p = ctx.path();
          const b = fmtBound(min, Number.isInteger(v));
          ctx.add(fieldErr.invalid(p, v, `${p} in body should be greater than ${exc ? '' : 'or equal to '}${b}`));
        }
      });
    }
    if (s.maximum !== undefined) {
      const max = num(s.maximum, ptr + '/maximum');
      const exc = s.exclusiveMaximum === true;
      numChecks.push((v, ctx) => {
        if (exc ? v >= max : v > max) {
          const p = ctx.path();
          const b = fmtBound(max, Number.isInteger(v));
          ctx.add(fieldErr.invalid(p, v, `${p} in body should be less than ${exc ? '' : 'or equal to '}${b}`));
        }
      });
    }
    if (s.multipleOf !== undefined) {
      const f = num(s.multipleOf, ptr + '/multipleOf');
      if (f <= 0) throw new SchemaCompileError(ptr + '/multipleOf', 'multipleOf must be positive');
      numChecks.push((v, ctx) => {
        let ok: boolean;
        if (Number.isInteger(v) && Number.isInteger(f)) ok = v % f === 0;
        else {
          const m = f < 1 ? (1 / f) * v : v / f;
          ok = Number.isInteger(m);
        }
        if (!ok) {
          const p = ctx.path();
          ctx.add(fieldErr.invalid(p, v, `${p} in body should be a multiple of ${fmtBound(f, Number.isInteger(v))}`));
        }
      });
    }
    if (s.format !== undefined && (type === 'integer' || type === 'number')) {
      const nf = numberFormat(s.format);
      const fname = s.format;
      if (nf) {
        numChecks.push((v, ctx) => {
          if (!nf(v)) {
            const p = ctx.path();
            ctx.add(fieldErr.typeInvalid(p, v, `${p} in body must be of type ${fname}`));
          }
        });
      }
    }
    if (numChecks.length) {
      checks.push((v, _o, ctx) => {
        if (typeof v === 'number') for (const c of numChecks) c(v, ctx);
      });
    }

    // ---- arrays
    const listType = s['x-cluster-list-type'];
    if (s.items !== undefined) {
      if (Array.isArray(s.items)) throw new SchemaCompileError(ptr + '/items', 'items must be a single schema (tuple items are not supported)');
      node.items = compileNode(s.items, ptr + '/items');
    }
    if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
      throw new SchemaCompileError(ptr + '/x-cluster-list-type', `unknown list type ${JSON.stringify(listType)}`);
    }
    if (listType === 'map') {
      const keys = s['x-cluster-list-map-keys'];
      if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string')) {
        throw new SchemaCompileError(ptr + '/x-cluster-list-map-keys', 'x-cluster-list-type map needs x-cluster-list-map-keys');
      }
      node.mapKeys = [...keys].sort();
    }
    // A uniqueBy rule on the single map key reports the duplicate itself, in the hand-written form
    // (`[i].key: Duplicate value: "v"`); the structural check would report the same item twice.
    const ruleSpecs = Array.isArray(s['x-cluster-rules']) ? s['x-cluster-rules'] : [];
    const mapKeysByRule = node.mapKeys !== null && node.mapKeys.length === 1
      && ruleSpecs.some((r) => isObject(r) && r.rule === 'uniqueBy' && r.key === node.mapKeys![0]);
    {
      const items = node.items;
      const minItems = s.minItems !== undefined ? num(s.minItems, ptr + '/minItems') : -1;
      const maxItems = s.maxItems !== undefined ? num(s.maxItems, ptr + '/maxItems') : -1;
      const unique = s.uniqueItems === true;
      const isSet = listType === 'set';
      const mapKeys = mapKeysByRule ? null : node.mapKeys;
      const oldMapKeys = node.mapKeys;
      if (items || minItems >= 0 || maxItems >= 0 || unique || isSet || mapKeys) {
        checks.push((v, old, ctx) => {
          if (!Array.isArray(v)) return;
          if (items) {
            let oldByKey: Map<string, unknown> | null = null;
            if (ctx.update && oldMapKeys && Array.isArray(old)) {
              oldByKey = new Map();
              for (const o of old) if (isObject(o)) oldByKey.set(mapKeyOf(o, oldMapKeys), o);
            }
            for (let i = 0; i < v.length; i++) {
              ctx.pushIndex(i);
              const oi = oldByKey && isObject(v[i]) ? oldByKey.get(mapKeyOf(v[i] as Record<string, unknown>, oldMapKeys!)) : undefined;
              items.validate(v[i], oi, ctx);
              ctx.pop();
            }
          }
          if (minItems >= 0 && v.length < minItems) {
            const p = ctx.path();
            ctx.add(fieldErr.invalid(p, v.length, `${p} in body should have at least ${minItems} items`));
          }
          if (maxItems >= 0 && v.length > maxItems) ctx.add(fieldErr.tooMany(ctx.path(), v.length, maxItems));
          if (unique && !isSet) {
            const seen = new Set<string>();
            for (const x of v) {
              const k = canonicalJSON(x);
              if (seen.has(k)) {
                const p = ctx.path();
                ctx.add(fieldErr.invalid(p, '', `${p} in body shouldn't contain duplicates`));
                break;
              }
              seen.add(k);
            }
          }
          if (isSet && v.length > 1) {
            const seen = new Set<string>();
            for (let i = 0; i < v.length; i++) {
              const k = typeof v[i] === 'string' ? 's' + (v[i] as string) : canonicalJSON(v[i]);
              if (seen.has(k)) ctx.add(fieldErr.duplicate(`${ctx.path()}[${i}]`, v[i]));
              else seen.add(k);
            }
          }
          if (mapKeys && v.length > 1) {
            const seen = new Set<string>();
            for (let i = 0; i < v.length; i++) {
              const it = v[i];
              if (!isObject(it)) continue;
              const k = mapKeyOf(it, mapKeys);
              if (seen.has(k)) {
                const keyObj: Record<string, unknown> = {};
                for (const mk of mapKeys) if (hasOwn(it, mk)) keyObj[mk] = it[mk];
                ctx.add(fieldErr.duplicate(`${ctx.path()}[${i}]`, keyObj));
              } else seen.add(k);
            }
          }
        });
      }
    }

    // ---- objects
    const mapType = s['x-cluster-map-type'];
    if (mapType !== undefined && mapType !== 'granular' && mapType !== 'atomic') {
      throw new SchemaCompileError(ptr + '/x-cluster-map-type', `unknown map type ${JSON.stringify(mapType)}`);
    }
    if (s.properties !== undefined) {
      if (!isObject(s.properties)) throw new SchemaCompileError(ptr + '/properties', 'properties must be a map');
      node.props = new Map();
      for (const [k, ps] of Object.entries(s.properties)) node.props.set(k, compileNode(ps, `${ptr}/properties/${ptrEscape(k)}`));
    }
    const ap = s.additionalProperties;
    let apFalse = false;
    if (ap !== undefined) {
      if (ap === true) node.additionalAny = true;
      else if (ap === false) apFalse = true;
      else if (isObject(ap)) node.additional = compileNode(ap, ptr + '/additionalProperties');
      else throw new SchemaCompileError(ptr + '/additionalProperties', 'additionalProperties must be a schema or a boolean');
    }
    const requiredList = s.required ?? EMPTY_ARRAY;
    if (!Array.isArray(requiredList)) throw new SchemaCompileError(ptr + '/required', 'required must be a list');
    // A required property that carries a nonEmpty rule (checked when absent too) is reported by that
    // rule alone, with its message, as upstream's hand-written `len(x) == 0` check does.
    const required = requiredList.filter((r) => !(isObject(s.properties) && hasOwn(s.properties, r) && reportsAbsence(s.properties[r] as Schema)));
    const minProps = s.minProperties !== undefined ? num(s.minProperties, ptr + '/minProperties') : -1;
    const maxProps = s.maxProperties !== undefined ? num(s.maxProperties, ptr + '/maxProperties') : -1;
    const resource = isRoot ? options.resource : undefined;
    if (node.props || node.additional || apFalse || required.length || minProps >= 0 || maxProps >= 0) {
      const props = node.props;
      const additional = node.additional;
      let absentList: [string, CNode][] | null = null;
      checks.push((v, old, ctx) => {
        if (!isObject(v)) return;
        const oldObj = old !== undefined && isObject(old) ? old : undefined;
        let n = 0;
        for (const k in v) {
          n++;
          const child = props ? props.get(k) : undefined;
          if (child) {
            ctx.pushProp(k);
            child.validate(v[k], oldObj && hasOwn(oldObj, k) ? oldObj[k] : undefined, ctx);
            ctx.pop();
          } else if (additional) {
            ctx.pushKey(k);
            additional.validate(v[k], oldObj && hasOwn(oldObj, k) ? oldObj[k] : undefined, ctx);
            ctx.pop();
          } else if (apFalse && !(resource && (k === 'apiVersion' || k === 'kind' || k === 'metadata'))) {
            const p = ctx.path();
            ctx.add(fieldErr.invalid(p, k, `${p === '' ? '' : p}.${k} in body is a forbidden property`));
          }
        }
        for (let i = 0; i < required.length; i++) {
          const r = required[i];
          if (!hasOwn(v, r)) {
            ctx.pushProp(r);
            ctx.add(fieldErr.required(ctx.path()));
            ctx.pop();
          }
        }
        if (props) {
          if (absentList === null) absentList = [...props].filter(([, c]) => c.absent.length > 0);
          for (const [k, c] of absentList) {
            if (hasOwn(v, k)) continue;
            ctx.pushProp(k);
            const ov = oldObj && hasOwn(oldObj, k) ? oldObj[k] : undefined;
            for (const a of c.absent) a(undefined, ov, ctx);
            ctx.pop();
          }
        }
        if (minProps >= 0 && n < minProps) {
          const p = ctx.path();
          ctx.add(fieldErr.invalid(p, n, `${p} in body should have at least ${minProps} properties`));
        }
        if (maxProps >= 0 && n > maxProps) ctx.add(fieldErr.tooMany(ctx.path(), n, maxProps));
      });
    }

    // ---- composition
    const branches = (key: 'allOf' | 'anyOf' | 'oneOf'): CNode[] | null => {
      const list = s[key];
      if (list === undefined) return null;
      if (!Array.isArray(list)) throw new SchemaCompileError(`${ptr}/${key}`, `${key} must be a list`);
      return list.map((b, i) => compileNode(b, `${ptr}/${key}/${i}`));
    };
    const allOf = branches('allOf');
    const anyOf = branches('anyOf');
    const oneOf = branches('oneOf');
    const not = s.not !== undefined ? compileNode(s.not, ptr + '/not') : null;
    const trial = (b: CNode, v: unknown, old: unknown, ctx: ValidationContext): FieldError[] => {
      const mark = ctx.errors.length;
      b.validate(v, old, ctx);
      const errs = ctx.errors.slice(mark);
      ctx.errors.length = mark;
      return errs;
    };
    if (allOf) {
      checks.push((v, old, ctx) => {
        for (const b of allOf) b.validate(v, old, ctx);
      });
    }
    if (anyOf) {
      checks.push((v, old, ctx) => {
        let best: FieldError[] | null = null;
        for (const b of anyOf) {
          const errs = trial(b, v, old, ctx);
          if (errs.length === 0) return;
          if (!best || errs.length < best.length) best = errs;
        }
        const p = ctx.path();
        ctx.add(fieldErr.invalid(p, '', `${p} in body must validate at least one schema (anyOf)`));
        if (best) for (const e of best) ctx.add(e);
      });
    }
    if (oneOf) {
      checks.push((v, old, ctx) => {
        let ok = 0;
        let best: FieldError[] | null = null;
        for (const b of oneOf) {
          const errs = trial(b, v, old, ctx);
          if (errs.length === 0) ok++;
          else if (!best || errs.length < best.length) best = errs;
        }
        if (ok === 1) return;
        const p = ctx.path();
        ctx.add(fieldErr.invalid(p, '', `${p} in body must validate one and only one schema (oneOf)`));
        if (ok === 0 && best) for (const e of best) ctx.add(e);
      });
    }
    if (not) {
      checks.push((v, old, ctx) => {
        if (trial(not, v, old, ctx).length === 0) {
          const p = ctx.path();
          ctx.add(fieldErr.invalid(p, '', `${p} in body must not validate the schema (not)`));
        }
      });
    }

    // ---- embedded resources and resource metadata
    if (node.embedded) {
      checks.push((v, _old, ctx) => {
        if (!isObject(v)) return;
        validateEmbeddedResource(v, ctx.path(), ctx.errors);
      });
    }
    if (resource) {
      const r = resource;
      const rootMeta = { path: 'metadata', nameSyntax: r.nameSyntax, requireName: true, namespaced: r.namespaced };
      checks.push((v, old, ctx) => {
        if (!isObject(v)) return;
        const mp = ctx.depth === 0 ? 'metadata' : `${ctx.path()}.metadata`;
        validateObjectMeta(v.metadata, ctx.depth === 0 ? rootMeta : { ...rootMeta, path: mp }, ctx.errors);
        if (ctx.update && isObject(old)) validateObjectMetaUpdate(v.metadata, old.metadata, mp, ctx.errors);
      });
    }

    // ---- declarative rules
    const rules = compileRules(s, ptr);
    for (const r of rules) {
      if (r.whenAbsent) node.absent.push(r.updateOnly ? (v, o, ctx) => { if (ctx.update) r.check(v, o, ctx); } : r.check);
      if (r.updateOnly) checks.push((v, o, ctx) => { if (ctx.update) r.check(v, o, ctx); });
      else checks.push(r.check);
    }

    // ---- CEL
    const celCheck = compileCel(s, ptr);
    if (celCheck) checks.push(celCheck);

    // ---- defaults
    if (s.default !== undefined) node.hasDefaults = true;
    const childHasDefaults = (): boolean => {
      if (node.props) for (const c of node.props.values()) if (c.hasDefaults) return true;
      return !!(node.items?.hasDefaults || node.additional?.hasDefaults);
    };
    if (childHasDefaults()) node.hasDefaults = true;

    // ---- the node's validate
    const nChecks = checks.length;
    const c0 = checks[0];
    const typeErr = (v: unknown, ctx: ValidationContext): void => {
      const p = ctx.path();
      const dt = dataType(v);
      ctx.add(fieldErr.typeInvalid(p, dt, `${p} in body must be of type ${typeLabel}: ${jsonQuote(dt)}`));
    };
    if (typeOk) {
      if (nChecks === 0) {
        node.validate = (v, _old, ctx) => {
          if (v === null && nullable) return;
          if (!typeOk(v)) typeErr(v, ctx);
        };
      } else if (nChecks === 1) {
        node.validate = (v, old, ctx) => {
          if (v === null && nullable) return;
          if (!typeOk(v)) { typeErr(v, ctx); return; }
          c0(v, old, ctx);
        };
      } else {
        node.validate = (v, old, ctx) => {
          if (v === null && nullable) return;
          if (!typeOk(v)) { typeErr(v, ctx); return; }
          for (let i = 0; i < nChecks; i++) checks[i](v, old, ctx);
        };
      }
    } else {
      node.validate = nChecks === 0
        ? () => {}
        : (v, old, ctx) => {
            if (v === null && nullable) return;
            for (let i = 0; i < nChecks; i++) checks[i](v, old, ctx);
          };
    }
  }

  function num(v: unknown, ptr: string): number {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new SchemaCompileError(ptr, 'must be a number');
    return v;
  }

  const root = compileNode(schema, '', true);
  const gates = featureGates;

  return {
    validate(obj: unknown): FieldError[] {
      const ctx = new ValidationContext(false, gates);
      root.validate(obj, undefined, ctx);
      return ctx.errors;
    },
    validateUpdate(obj: unknown, old: unknown): FieldError[] {
      const ctx = new ValidationContext(true, gates);
      root.validate(obj, old, ctx);
      return ctx.errors;
    },
    applyDefaults(obj: unknown): void {
      applyDefaults(root, obj);
    },
    prune(obj: unknown): string[] {
      const out: string[] = [];
      prune(root, obj, '', true, !!options.resource, out);
      return out;
    },
  };
}



