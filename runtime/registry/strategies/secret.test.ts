// Secret data through every write path of the store: a value Go's base64 decoder refuses is answered
// as upstream's body decoder answers it (400, `illegal base64 data at input byte N`) and no answer
// carries any part of the value; a value it accepts reads back in canonical form.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { secretResource } from '../../../out/routes/secret.ts';
import { configMapResource } from '../../../out/routes/configmap.ts';
import * as validators from '../../../out/validators/index.ts';
import { ApiError } from '../../errors/api-error.ts';
import { lazyValidator } from '../../http/bootstrap.ts';
import { MemoryStorage } from '../../storage/memory.ts';
import { Registry } from '../registry.ts';
import type { Store } from '../store.ts';
import type { Obj } from '../../api/object.ts';

const PREFIX = 'Secret in version "v1" cannot be handled as a Secret: ';

// [what, data value, Go's decode offset]
const bad: [string, string, number][] = [
  ['not base64 (a password)', 'hunter2-Sup3rS3cret', 7],
  ['a partial quantum', 'c2VjcmV0X3Rva2Vu1', 16],
  ['"=" too early', 'c2Vj=mV0', 4],
  ['one "=" where two are needed', 'c2VjcmV0LXRva2VuLQ=', 19],
  ['trailing garbage after padding', 'c2VjcmV0LXRva2VuLQ==c2Vj', 20],
  ['a non-ASCII character (offset in UTF-8 bytes)', 'c2Vj\u00e9cmV0', 4],
  ['a space', 'c2Vj cmV0', 4],
];

// [what, value sent, value stored]
const good: [string, string, string][] = [
  ['canonical', 'c2VjcmV0', 'c2VjcmV0'],
  ['line breaks (Go skips them)', 'c2Vj\ncmV0\r\n', 'c2VjcmV0'],
  ['non-zero padding bits', 'YR==', 'YQ=='],
  ['empty', '', ''],
];

type Path = [string, (s: Store, value: string) => Promise<unknown>];
const paths: Path[] = [
  ['create', (s, v) => s.create('default', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'new' }, data: { k: v } })],
  ['create with stringData on the same key', (s, v) => s.create('default', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'new' }, data: { k: v }, stringData: { k: 'x' } })],
  ['update', (s, v) => s.update('default', 'old', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'old' }, data: { k: v } })],
  ['patch', (s, v) => s.patch('default', 'old', (cur: Obj) => ({ ...cur, data: { ...(cur.data as object), k: v } }))],
  ['dry-run create', (s, v) => s.create('default', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'dry' }, data: { k: v } }, { dryRun: true })],
];

describe('Secret data on every write path', () => {
  let storage: MemoryStorage;
  let secrets: Store;

  beforeEach(async () => {
    storage = new MemoryStorage({ autoCompaction: false });
    const registry = new Registry(storage, [{ descriptor: secretResource, validator: lazyValidator(() => validators.Secret.createValidator()) }], {});
    await registry.init();
    secrets = registry.storeFor('', 'secrets') as Store;
    await secrets.create('default', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'old' }, data: { k: 'b2xk' } });
  });
  afterEach(async () => {
    await storage.close();
  });

  describe.each(paths)('%s', (_path, write) => {
    it.each(bad)('refuses %s with 400 and the byte offset, echoing nothing', async (_what, value, offset) => {
      const e = await write(secrets, value).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(ApiError);
      const status = (e as ApiError).toStatus();
      expect(status).toMatchObject({ code: 400, reason: 'BadRequest', message: `${PREFIX}illegal base64 data at input byte ${offset}` });
      const text = JSON.stringify(status);
      for (const part of [value, value.slice(0, 6), value.slice(-6)]) expect(text).not.toContain(part);
    });

    it.each(good)('accepts %s and stores it canonical', async (_what, value, stored) => {
      const r = (await write(secrets, value)) as { object: Obj };
      expect((r.object.data as Record<string, string>).k).toBe(_path.includes('stringData') ? 'eA==' : stored);
    });
  });
});

describe('ConfigMap binaryData is decoded the same way', () => {
  let storage: MemoryStorage;
  let cms: Store;
  beforeEach(async () => {
    storage = new MemoryStorage({ autoCompaction: false });
    const registry = new Registry(storage, [{ descriptor: configMapResource, validator: lazyValidator(() => validators.ConfigMap.createValidator()) }], {});
    await registry.init();
    cms = registry.storeFor('', 'configmaps') as Store;
  });
  afterEach(async () => {
    await storage.close();
  });

  it.each(bad)('refuses %s with 400', async (_what, value, offset) => {
    const e = await cms.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, binaryData: { k: value } }).then(() => undefined, (x: unknown) => x);
    expect((e as ApiError).toStatus()).toMatchObject({
      code: 400,
      message: `ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte ${offset}`,
    });
  });

  it.each(good)('accepts %s and stores it canonical', async (_what, value, stored) => {
    const r = await cms.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, binaryData: { k: value } });
    expect((r.object.binaryData as Record<string, string>).k).toBe(stored);
  });
});
