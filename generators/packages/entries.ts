// The entry modules of the published packages: one per kind and one per group-version (the core
// group as `v1`), plus the package root. Each is a few re-export lines over the compiled out/ files,
// so that importing one kind loads that kind's module and nothing of the other kinds.
import { posix } from 'node:path';

export interface KindEntry {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** The kind's validator module under out/, repository-relative, `.ts`. */
  validatorModule: string;
  /** The kind's type in out/types when it is named apart from the kind (Event of events.cluster.io: EventsV1Event). */
  typeName?: string;
}

/** `Kind, KindList` re-exported from out/types, renamed from the type names where those differ. */
function kindTypeExports(k: KindEntry): string {
  if (k.typeName === undefined) return `${k.kind}, ${k.listKind}`;
  return `${k.typeName} as ${k.kind}, ${k.typeName}List as ${k.listKind}`;
}

export interface EntryFile {
  /** Relative to the package's dist/. */
  path: string;
  content: string;
}

const HEADER = '// Built by npm run build:packages from out/. DO NOT EDIT.';
const TYPES_MODULE = 'out/types/index.js';

export const groupVersionPath = (k: Pick<KindEntry, 'group' | 'version'>): string => (k.group ? `${k.group}/${k.version}` : k.version);

/** `./x.js` from `api/storage.cluster.io/v1/StorageClass.js` to `out/...` inside dist/. */
function importPath(fromFile: string, target: string): string {
  const rel = posix.relative(posix.dirname(fromFile), target);
  return rel.startsWith('.') ? rel : `./${rel}`;
}

const jsOf = (tsPath: string): string => tsPath.replace(/\.ts$/, '.js');

function byGroupVersion(kinds: KindEntry[]): Map<string, KindEntry[]> {
  const groups = new Map<string, KindEntry[]>();
  for (const k of kinds) {
    const gv = groupVersionPath(k);
    groups.set(gv, [...(groups.get(gv) ?? []), k]);
  }
  return new Map([...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The artifacts package: per kind, the kind's validator module and its types; per group-version, a
 * value and a type of each kind's name (`StorageClass.validate(x)`, `const x: StorageClass`); the
 * root re-exports every group-version and the shared types.
 */
export function artifactEntries(kinds: KindEntry[], typeNames: string[]): EntryFile[] {
  const files: EntryFile[] = [];
  const kindTypeNames = new Set(kinds.flatMap((k) => [k.kind, k.listKind, ...(k.typeName ? [k.typeName, `${k.typeName}List`] : [])]));
  const rootJs: string[] = [];
  const rootDts: string[] = [];
  const rootOwner = rootOwners(kinds);
  for (const [gv, members] of byGroupVersion(kinds)) {
    const gvFile = `api/${gv}.js`;
    const gvJs: string[] = [];
    const gvDts: string[] = [];
    for (const k of members) {
      const kindFile = `api/${gv}/${k.kind}.js`;
      const validator = importPath(kindFile, jsOf(k.validatorModule));
      const types = importPath(kindFile, TYPES_MODULE);
      files.push({ path: kindFile, content: `${HEADER}\n// ${k.kind} (${gv}): its validators and defaulter.\nexport * from '${validator}';\n` });
      files.push({
        path: kindFile.replace(/\.js$/, '.d.ts'),
        content: `${HEADER}\nexport * from '${validator}';\nexport type { ${kindTypeExports(k)} } from '${types}';\n`,
      });
      const kindImport = importPath(gvFile, kindFile);
      gvJs.push(`export * as ${k.kind} from '${kindImport}';`);
      gvDts.push(
        `import * as _${k.kind} from '${kindImport}';`,
        `/** ${k.kind}'s validators and defaulter: ${k.kind}.validate(obj), ${k.kind}.validateUpdate(obj, old), ${k.kind}.applyDefaults(obj). */`,
        `export declare const ${k.kind}: typeof _${k.kind};`,
        `export type ${k.kind} = _${k.kind}.${k.kind};`,
        `export type ${k.listKind} = _${k.kind}.${k.listKind};`,
      );
    }
    files.push({ path: gvFile, content: `${HEADER}\n${gvJs.join('\n')}\n` });
    files.push({ path: `api/${gv}.d.ts`, content: `${HEADER}\n${gvDts.join('\n')}\n` });
    // A kind served in two groups is exported at the root once, from the core group (or the first).
    const owned = members.filter((k) => rootOwner.get(k.kind) === gv);
    const rootNames = owned.length === members.length ? '*' : `{ ${owned.map((k) => k.kind).join(', ')} }`;
    const rootTypeNames = owned.length === members.length ? '*' : `{ ${owned.flatMap((k) => [k.kind, k.listKind]).join(', ')} }`;
    if (owned.length > 0) {
      rootJs.push(`export ${rootNames} from '${importPath('api/index.js', gvFile)}';`);
      rootDts.push(`export ${rootTypeNames} from '${importPath('api/index.js', gvFile)}';`);
    }
  }
  const shared = typeNames.filter((n) => !kindTypeNames.has(n));
  rootDts.push(`export type { ${shared.join(', ')} } from '${importPath('api/index.js', TYPES_MODULE)}';`);
  files.push({ path: 'api/index.js', content: `${HEADER}\n${rootJs.join('\n')}\n` });
  files.push({ path: 'api/index.d.ts', content: `${HEADER}\n${rootDts.join('\n')}\n` });
  return files;
}

/** For each kind name, the group-version whose kind the package root exports: the core one, else the first. */
function rootOwners(kinds: KindEntry[]): Map<string, string> {
  const owners = new Map<string, string>();
  for (const k of [...kinds].sort((a, b) => (a.group === '' ? 0 : 1) - (b.group === '' ? 0 : 1))) {
    if (!owners.has(k.kind)) owners.set(k.kind, groupVersionPath(k));
  }
  return owners;
}

/** The types package: declarations per group-version and at the root, each with an empty module beside it. */
export function typeEntries(kinds: KindEntry[]): EntryFile[] {
  const files: EntryFile[] = [];
  const empty = `${HEADER}\n// Declarations only: this module exports types and no values.\nexport {};\n`;
  for (const [gv, members] of byGroupVersion(kinds)) {
    const file = `api/${gv}.d.ts`;
    const names = members.map(kindTypeExports).join(', ');
    files.push({ path: file, content: `${HEADER}\nexport type { ${names} } from '${importPath(file, TYPES_MODULE)}';\n` });
    files.push({ path: `api/${gv}.js`, content: empty });
  }
  files.push({ path: 'api/index.d.ts', content: `${HEADER}\nexport * from '${importPath('api/index.d.ts', TYPES_MODULE)}';\n` });
  files.push({ path: 'api/index.js', content: empty });
  return files;
}

/** The names out/types/index.ts exports (the types generator writes one `export interface|type Name` per line). */
export function exportedTypeNames(typesSource: string): string[] {
  return [...typesSource.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]).sort();
}
