// Protobuf request bodies of the self reviews (kubectl's typed clients send `auth whoami` and
// `auth can-i` in protobuf), in the field numbering of k8s.io/api authentication/v1 and
// authorization/v1 generated.proto. Zero values are left out, as JSON omitempty does.

import type { Obj } from '../api/object.ts';
import { bytes, fields, objectMeta, str, type ProtobufDecoders } from './protobuf.ts';

/** Strings at the given field numbers, non-empty ones only. */
function strings(buf: Buffer, names: Record<number, string>): Obj {
  const o: Obj = {};
  for (const f of fields(buf)) {
    const key = names[f.no];
    if (key && f.wire === 2 && str(f)) o[key] = str(f);
  }
  return o;
}

/** FieldSelectorAttributes / LabelSelectorAttributes: rawSelector (1), requirements (2: key 1, operator 2, values 3). */
function selectorAttributes(buf: Buffer): Obj {
  const o: Obj = {};
  const requirements: Obj[] = [];
  for (const f of fields(buf)) {
    if (f.no === 1 && str(f)) o.rawSelector = str(f);
    else if (f.no === 2) {
      const r: Obj = {};
      const values: string[] = [];
      for (const e of fields(bytes(f))) {
        if (e.no === 1) r.key = str(e);
        else if (e.no === 2) r.operator = str(e);
        else if (e.no === 3) values.push(str(e));
      }
      if (values.length) r.values = values;
      requirements.push(r);
    }
  }
  if (requirements.length) o.requirements = requirements;
  return o;
}

function resourceAttributes(buf: Buffer): Obj {
  const o = strings(buf, { 1: 'namespace', 2: 'verb', 3: 'group', 4: 'version', 5: 'resource', 6: 'subresource', 7: 'name' });
  for (const f of fields(buf)) {
    if (f.no === 8) o.fieldSelector = selectorAttributes(bytes(f));
    else if (f.no === 9) o.labelSelector = selectorAttributes(bytes(f));
  }
  return o;
}

function selfSubjectAccessReview(buf: Buffer): Obj {
  const o: Obj = {};
  for (const f of fields(buf)) {
    if (f.no === 1) o.metadata = objectMeta(bytes(f));
    else if (f.no === 2) {
      const spec: Obj = {};
      for (const s of fields(bytes(f))) {
        if (s.no === 1) spec.resourceAttributes = resourceAttributes(bytes(s));
        else if (s.no === 2) spec.nonResourceAttributes = strings(bytes(s), { 1: 'path', 2: 'verb' });
      }
      o.spec = spec;
    }
  }
  return o;
}

function selfSubjectRulesReview(buf: Buffer): Obj {
  const o: Obj = {};
  for (const f of fields(buf)) {
    if (f.no === 1) o.metadata = objectMeta(bytes(f));
    else if (f.no === 2) o.spec = strings(bytes(f), { 1: 'namespace' });
  }
  return o;
}

/** SelfSubjectReview has nothing a client sets but metadata. */
function selfSubjectReview(buf: Buffer): Obj {
  const o: Obj = {};
  for (const f of fields(buf)) if (f.no === 1) o.metadata = objectMeta(bytes(f));
  return o;
}

/** The decoders by `apiVersion/kind`, under the upstream group names kubectl sends and ours. */
export const REVIEW_PROTOBUF_DECODERS: ProtobufDecoders = Object.fromEntries(
  ['k8s.io', 'cluster.io'].flatMap((suffix) => [
    [`authentication.${suffix}/v1/SelfSubjectReview`, selfSubjectReview],
    [`authorization.${suffix}/v1/SelfSubjectAccessReview`, selfSubjectAccessReview],
    [`authorization.${suffix}/v1/SelfSubjectRulesReview`, selfSubjectRulesReview],
  ]),
);
