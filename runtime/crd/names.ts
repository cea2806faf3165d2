// NamesAccepted / Established as pure functions of (crd, others): upstream's naming controller
// (pkg/controller/status) and establishing controller (pkg/controller/establish, with its check of
// the conversion webhook's caBundle), without the asynchrony.
import { X509Certificate } from 'node:crypto';
import type { CRDCondition, CRDNames, CustomResourceDefinition } from './types.ts';

/** A built-in resource of some group whose names a CRD of the same group may not take. */
export interface BuiltinResourceNames {
  group: string;
  plural: string;
  singular?: string;
  shortNames?: readonly string[];
  kind: string;
  listKind?: string;
}

export interface NamingContext {
  /** Every CRD known to the server (the CRD itself may be included; its accepted names count, as upstream). */
  crds: readonly CustomResourceDefinition[];
  /** Built-in resources (only those of the CRD's group matter). */
  builtins?: readonly BuiltinResourceNames[];
}

export interface NamesResult {
  acceptedNames: CRDNames;
  namesAccepted: CRDCondition;
  /** Established as the naming controller leaves it (False NotAccepted / False Installing / an old True kept). */
  established: CRDCondition;
}

/**
 * v1 defaulting of spec.names (upstream SetDefaults_CustomResourceDefinitionSpec): an empty or
 * absent singular becomes the lowercased kind, an empty or absent listKind kind + "List". With no
 * kind both stay as they are (the Required rules of the spec report them). Mutates and returns names.
 */
export function defaultNames(names: CRDNames): CRDNames {
  // a kind of another type is left for the validator to report
  if (typeof names.kind !== 'string' || names.kind === '') return names;
  if (!names.singular) names.singular = names.kind.toLowerCase();
  if (!names.listKind) names.listKind = `${names.kind}List`;
  return names;
}

/**
 * Names as upstream compares them (Go structs, equality.Semantic): an absent, empty or empty-list
 * field is the zero value. The naming controller skips a CRD whose spec.names equal its acceptedNames.
 */
export function sameNames(a: CRDNames | undefined, b: CRDNames | undefined): boolean {
  const norm = (n: CRDNames | undefined): unknown[] => {
    const x = n ?? {};
    return [x.plural ?? '', x.singular ?? '', x.shortNames ?? [], x.kind ?? '', x.listKind ?? '', x.categories ?? []];
  };
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}

/** Upstream's IsCRDConditionEquivalent: type, status, reason and message (not the transition time). */
export function conditionEquivalent(a: CRDCondition | undefined, b: CRDCondition | undefined): boolean {
  if (!a || !b) return a === b;
  return a.type === b.type && a.status === b.status && (a.reason ?? '') === (b.reason ?? '') && (a.message ?? '') === (b.message ?? '');
}

function usedNames(crd: CustomResourceDefinition, ctx: NamingContext): { resources: Set<string>; kinds: Set<string> } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  const group = crd.spec.group;
  const seen = new Set<string>();
  const all = [...ctx.crds];
  // The CRD itself counts with its own accepted names (upstream lists every CRD of the group).
  if (!all.some((c) => c.metadata?.name !== undefined && c.metadata?.name === crd.metadata?.name)) all.push(crd);
  for (const c of all) {
    if (c.spec?.group !== group) continue;
    const key = c.metadata?.name ?? '';
    if (key && seen.has(key)) continue;
    seen.add(key);
    const item = c.metadata?.name === crd.metadata?.name ? crd : c;
    const a = item.status?.acceptedNames ?? {};
    resources.add(a.plural ?? '');
    resources.add(a.singular ?? '');
    for (const s of a.shortNames ?? []) resources.add(s);
    kinds.add(a.kind ?? '');
    kinds.add(a.listKind ?? '');
  }
  for (const b of ctx.builtins ?? []) {
    if (b.group !== group) continue;
    resources.add(b.plural);
    if (b.singular) resources.add(b.singular);
    for (const s of b.shortNames ?? []) resources.add(s);
    kinds.add(b.kind);
    kinds.add(b.listKind ?? `${b.kind}List`);
  }
  return { resources, kinds };
}

function conflict(requested: string, accepted: string, used: Set<string>): string | undefined {
  if (requested === accepted) return undefined;
  if (!used.has(requested)) return undefined;
  return `${JSON.stringify(requested)} is already in use`;
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/**
 * The naming controller's calculation: which requested names can be accepted, the NamesAccepted
 * condition (True NoConflicts, or False with the last conflict found) and the Established
 * condition it leaves behind.
 */
export function calculateNames(crd: CustomResourceDefinition, ctx: NamingContext): NamesResult {
  const { resources, kinds } = usedNames(crd, ctx);
  const requested = crd.spec.names ?? {};
  const accepted: CRDNames = crd.status?.acceptedNames ?? {};
  const next: CRDNames = { ...accepted };
  let cond: CRDCondition = { type: 'NamesAccepted', status: 'Unknown' };
  const fail = (reason: string, message: string): void => {
    cond = { type: 'NamesAccepted', status: 'False', reason, message };
  };

  let err = conflict(requested.plural ?? '', accepted.plural ?? '', resources);
  if (err) fail('PluralConflict', err);
  else next.plural = requested.plural;

  err = conflict(requested.singular ?? '', accepted.singular ?? '', resources);
  if (err) fail('SingularConflict', err);
  else next.singular = requested.singular;

  if (!sameList(requested.shortNames, accepted.shortNames)) {
    const mine = new Set(accepted.shortNames ?? []);
    const errs: string[] = [];
    for (const s of requested.shortNames ?? []) {
      if (mine.has(s)) continue;
      if (s === accepted.plural || s === accepted.singular) continue;
      const e = conflict(s, '', resources);
      if (e) errs.push(e);
    }
    if (errs.length) fail('ShortNamesConflict', errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
    else next.shortNames = requested.shortNames;
  }

  err = conflict(requested.kind ?? '', accepted.kind ?? '', kinds);
  if (err) fail('KindConflict', err);
  else next.kind = requested.kind;

  err = conflict(requested.listKind ?? '', accepted.listKind ?? '', kinds);
  if (err) fail('ListKindConflict', err);
  else next.listKind = requested.listKind;

  next.categories = requested.categories;
  if (cond.status === 'Unknown') cond = { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };

  let established: CRDCondition = { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
  const old = findCondition(crd, 'Established');
  if (old) established = { ...old };
  if (established.status !== 'True' && cond.status === 'True') {
    established = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
  }
  return { acceptedNames: clean(next), namesAccepted: cond, established };
}

/**
 * acceptedNames as upstream serializes them: plural and kind always (json tags without omitempty,
 * so "" while a conflicting name was never accepted), the other names only when non-empty.
 */
function clean(n: CRDNames): CRDNames {
  const out: CRDNames = { plural: n.plural ?? '', kind: n.kind ?? '' };
  for (const k of ['singular', 'shortNames', 'listKind', 'categories'] as const) {
    const v = n[k];
    if (v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0)) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

interface PemBlock {
  type: string;
  hasHeaders: boolean;
  der: Buffer;
}

/**
 * The PEM blocks of `text` in order, as Go's pem.Decode finds them (text around blocks is skipped,
 * a block whose body is not base64 is not a block), and whether anything follows the last one
 * (what makes client-go report "unable to parse bytes as PEM block").
 */
function pemBlocks(text: string): { blocks: PemBlock[]; trailing: boolean } {
  const re = /(?:^|\n)-----BEGIN ([^\n]*?)-----[ \t\r]*\n([\s\S]*?)-----END \1-----[ \t\r]*(?=\n|$)/g;
  const blocks: PemBlock[] = [];
  let end = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const lines = m[2].split('\n');
    let i = 0;
    while (i < lines.length && lines[i].includes(':')) i++;
    const body = lines.slice(i).join('').replace(/[ \t\r]/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || body.length % 4 !== 0) continue;
    blocks.push({ type: m[1], hasHeaders: i > 0, der: Buffer.from(body, 'base64') });
    end = re.lastIndex;
  }
  // Go's pem.Decode consumes the END line with its line break; whatever is left is decoded again.
  return { blocks, trailing: text.slice(end).replace(/^\n/, '').length > 0 };
}

function parsesAsCertificate(der: Buffer): boolean {
  try {
    new X509Certificate(der);
    return true;
  } catch {
    return false;
  }
}

/**
 * Upstream's webhook.ValidateCABundle (client-go's TLS config over the bundle): undefined when the
 * base64 `caBundle` is empty or holds at least one parsable CERTIFICATE block without headers,
 * else client-go's reason ("unable to load root certificates: unable to parse bytes as PEM block",
 * "... failed to parse certificate: ...", "... no valid certificate authority data seen").
 */
export function caBundleError(caBundle: string | undefined): string | undefined {
  if (typeof caBundle !== 'string' || caBundle === '') return undefined;
  const text = Buffer.from(caBundle, 'base64').toString('latin1');
  if (text.length === 0) return undefined;
  const { blocks, trailing } = pemBlocks(text);
  if (blocks.some((b) => b.type === 'CERTIFICATE' && !b.hasHeaders && parsesAsCertificate(b.der))) return undefined;
  const prefix = 'unable to load root certificates: ';
  // client-go walks the blocks in order and reports the first problem it meets.
  if (blocks.length === 0) return `${prefix}unable to parse bytes as PEM block`;
  if (blocks.some((b) => b.type === 'CERTIFICATE' && !b.hasHeaders)) return `${prefix}failed to parse certificate: x509: malformed certificate`;
  if (trailing) return `${prefix}unable to parse bytes as PEM block`;
  return `${prefix}no valid certificate authority data seen`;
}

/** The caBundle of spec.conversion.webhook.clientConfig, when that client config is set. */
export function conversionCABundle(crd: CustomResourceDefinition): { set: boolean; caBundle?: string } {
  const webhook = crd.spec?.conversion?.webhook;
  const cc = webhook && typeof webhook === 'object' ? (webhook as { clientConfig?: unknown }).clientConfig : undefined;
  if (!cc || typeof cc !== 'object') return { set: false };
  const b = (cc as { caBundle?: unknown }).caBundle;
  return { set: true, caBundle: typeof b === 'string' ? b : undefined };
}

/**
 * The establishing controller: once NamesAccepted is True (and Established is not yet True),
 * Established True InitialNamesAccepted, or False InvalidCABundle while the conversion webhook's
 * caBundle is not valid PEM. Undefined when the controller leaves the CRD alone.
 */
export function establishedCondition(crd: CustomResourceDefinition): CRDCondition | undefined {
  const na = findCondition(crd, 'NamesAccepted');
  if (!na || na.status !== 'True') return undefined;
  const cc = conversionCABundle(crd);
  if (cc.set && caBundleError(cc.caBundle) !== undefined) {
    return { type: 'Established', status: 'False', reason: 'InvalidCABundle', message: 'The conversion webhook CABundle is invalid' };
  }
  return { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' };
}

export function findCondition(crd: CustomResourceDefinition, type: string): CRDCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

export function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return findCondition(crd, type)?.status === 'True';
}

/**
 * Upstream's SetCRDCondition: replaces the condition of the same type, keeping its
 * lastTransitionTime unless the status changed. Returns a new list.
 */
export function setCondition(conditions: readonly CRDCondition[] | undefined, c: CRDCondition, now: string): CRDCondition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((x) => x.type === c.type);
  if (i < 0) {
    list.push({ ...c, lastTransitionTime: c.lastTransitionTime ?? now });
    return list;
  }
  const existing = list[i];
  const lastTransitionTime = existing.status !== c.status ? now : existing.lastTransitionTime ?? now;
  list[i] = { ...existing, ...c, lastTransitionTime };
  return list;
}

/**
 * Both controllers run to completion, as a client eventually observes them: returns the new status
 * (acceptedNames, NamesAccepted, Established) for `crd` given the others. `now` is an RFC 3339 time.
 */
export function reconcileNames(crd: CustomResourceDefinition, ctx: NamingContext, now: string): NonNullable<CustomResourceDefinition['status']> {
  const r = calculateNames(crd, ctx);
  let conditions = setCondition(crd.status?.conditions, r.namesAccepted, now);
  conditions = setCondition(conditions, r.established, now);
  const status = { ...(crd.status ?? {}), acceptedNames: r.acceptedNames, conditions };
  const est = establishedCondition({ ...crd, status });
  if (est && r.established.status !== 'True') status.conditions = setCondition(status.conditions, est, now);
  return status;
}
