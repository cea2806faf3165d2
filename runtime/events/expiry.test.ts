// Event expiry (upstream --event-ttl) in process over memory storage, with the controller's own
// clock: an event expires TTL after its last write, a write moves its deadline, and events stored
// before the controller started expire TTL after the write they record.
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenAuthenticator } from '../http/auth.ts';
import { buildApiServer, loadGenerated, type BuiltServer } from '../http/bootstrap.ts';
import type { Obj } from '../api/object.ts';
import type { Store } from '../registry/store.ts';
import { openStorage, type Storage } from '../storage/index.ts';
import { EventExpiry, lastRecordedWrite } from './expiry.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const TTL = 60_000;

let storage: Storage;
let built: BuiltServer;
let events: Store;
let clock = Date.now();
const running: EventExpiry[] = [];

function eventBody(name: string, message: string): Obj {
  return { apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'default' }, involvedObject: { kind: 'ConfigMap', name: 'cfg', namespace: 'default' }, reason: 'Test', message };
}

async function exists(name: string): Promise<boolean> {
  return (await events.list('default', { fieldSelector: `metadata.name=${name}` })).items.length === 1;
}

/** Waits until the controller has seen the write (its deadline is TTL after `at`). */
async function seen(expiry: EventExpiry, name: string, at: number): Promise<void> {
  const until = Date.now() + 5000;
  while (expiry.deadline('default', name) !== at + TTL) {
    if (Date.now() > until) throw new Error(`the write of ${name} at ${at} was not seen: deadline ${expiry.deadline('default', name)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function startExpiry(): Promise<EventExpiry> {
  const expiry = new EventExpiry({ registry: built.registry, ttlMs: TTL, sweepIntervalMs: 3_600_000, now: () => clock, log: () => undefined });
  await expiry.start();
  running.push(expiry);
  return expiry;
}

beforeAll(async () => {
  const gen = await loadGenerated(join(ROOT, 'out'));
  storage = openStorage({ kind: 'memory' });
  built = await buildApiServer(gen, { storage, authenticator: TokenAuthenticator.fromCsv(''), admission: false, customResources: false, storageVersionMigration: false });
  const s = built.registry.storeFor('', 'events');
  if (!s) throw new Error('no events store');
  events = s;
});

afterAll(async () => {
  for (const e of running) await e.stop();
  await built?.stop();
  await storage?.close();
});

describe('event expiry', () => {
  it('deletes an event TTL after its last write, and a write moves the deadline', async () => {
    const expiry = await startExpiry();
    const t0 = clock;
    await events.create('default', eventBody('ev-a', 'first'));
    await events.create('default', eventBody('ev-b', 'only'));
    await seen(expiry, 'ev-a', t0);
    await seen(expiry, 'ev-b', t0);

    clock = t0 + 30_000;
    await events.patch('default', 'ev-a', (current) => ({ ...current, message: 'again' }));
    await seen(expiry, 'ev-a', clock);

    clock = t0 + TTL + 1_000;
    await expiry.sweep();
    expect([await exists('ev-a'), await exists('ev-b')]).toEqual([true, false]);

    clock = t0 + 30_000 + TTL + 1_000;
    await expiry.sweep();
    expect(await exists('ev-a')).toBe(false);
    await expiry.stop();
  });

  it('expires events stored before it started TTL after the write they record', async () => {
    clock = Date.now();
    const { object } = await events.create('default', eventBody('ev-old', 'stored'));
    const recorded = lastRecordedWrite(object);
    expect(recorded).toBeDefined();
    clock = recorded! + TTL - 5_000;
    const expiry = await startExpiry();
    expect(expiry.deadline('default', 'ev-old')).toBe(recorded! + TTL);
    await expiry.sweep();
    expect(await exists('ev-old')).toBe(true);
    clock = recorded! + TTL + 1_000;
    await expiry.sweep();
    expect(await exists('ev-old')).toBe(false);
  });
});
