// The server's own StorageVersionMigration controller (upstream's storage version migrator and
// resource-version controllers in one): driven by a watch on storageversionmigrations from
// start-up, whose initial events cover the migrations already stored, so an unfinished migration
// resumes after a restart (from spec.continueToken). For each migration without Succeeded or Failed:
//   1. resolves spec.resource (resolve.ts); an unknown resource fails the migration;
//   2. records status.resourceVersion and sets Running True through /status;
//   3. lists the resource page by page and rewrites every object at the storage version
//      (rewrite.ts), saving spec.continueToken through the main endpoint after each page;
//   4. sets Succeeded (Running False) through /status; an unexpected error sets Failed instead.
// Migrations run one at a time, in the order their events arrive.
// It records no Events: upstream's migrators record none (pkg/controller/storageversionmigrator,
// kube-storage-version-migrator; see runtime/events/README.md); progress and failure are the conditions.

import { Informer } from '../controller/informer.ts';
import { WorkQueue } from '../controller/work-queue.ts';
import type { StorageVersionMigration, StorageVersionMigrationStatus } from './types.ts';
import { ApiError } from '../errors/api-error.ts';
import { deepClone, nowTimestamp, type Obj } from '../api/object.ts';
import type { Registry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';
import { isMigrationConditionTrue, isMigrationFinished, REASON_FAILED, REASON_RUNNING, REASON_SUCCEEDED, withMigrationCondition } from './conditions.ts';
import { describeResource, resolveResource } from './resolve.ts';
import { rewriteObject } from './rewrite.ts';

export interface MigrationControllerOptions {
  registry: Registry;
  /** Objects listed (and rewritten) per page; spec.continueToken is saved after each (default 500, upstream's list chunk size). */
  pageSize?: number;
  /**
   * How long after its creation a migration may wait for a custom resource that exists but is not
   * served at its storage version yet (a CRD just created or just switched), before it fails (default 60 s, as upstream's wait for discovery).
   */
  pendingTimeoutMs?: number;
  /** Problems the controller retries (default: stderr). */
  log?: (message: string) => void;
  /** The manager recorded for the controller's writes. */
  fieldManager?: string;
}

const SVM_GROUP = 'storagemigration.cluster.io';
const SVM_PLURAL = 'storageversionmigrations';
const WRITE_ATTEMPTS = 5;

/** A failure of the migration itself (not of the controller's own writes): it ends in Failed. */
class MigrationFailure extends Error {}

export class StorageVersionMigrationController {
  private readonly queue: WorkQueue;
  private informer: Informer | undefined;
  private stopped = false;
  private readonly store: Store;
  private readonly pageSize: number;

  constructor(private readonly o: MigrationControllerOptions) {
    const store = o.registry.storeFor(SVM_GROUP, SVM_PLURAL);
    if (!store) throw new Error('no storageversionmigrations store');
    this.store = store;
    this.pageSize = Math.max(1, Math.floor(o.pageSize ?? 500));
    this.queue = new WorkQueue({ reconcile: (name) => this.reconcile(name), log: (m) => this.log(m) });
  }

  private log(m: string): void {
    (this.o.log ?? ((x: string) => process.stderr.write(`storage version migrator: ${x}\n`)))(m);
  }

  private get fieldManager(): string {
    return this.o.fieldManager ?? 'storage-version-migrator-controller';
  }

  /** Starts the watch. Migrations run in the background: start does not wait for them. */
  async start(): Promise<void> {
    await this.watch();
  }

  /** Stops the watch and any migration between two objects; an interrupted migration resumes on the next start. */
  stop(): void {
    this.stopped = true;
    this.informer?.stop();
    this.queue.stop();
  }

  /** Resolves once no migration is queued or running (retries scheduled later do not count). */
  idle(): Promise<void> {
    return this.queue.settled();
  }

  private async watch(): Promise<void> {
    // the informer's first state, and its state after a restart, bring every unfinished migration back
    this.informer = new Informer(this.store, {
      onChange: (type, object) => {
        if (type === 'DELETED') return;
        const svm = object as unknown as StorageVersionMigration;
        if (!isMigrationFinished(svm)) this.queue.add(svm.metadata?.name ?? '');
      },
      log: (m) => this.log(m),
    });
    await this.informer.start();
  }

  private async reconcile(name: string): Promise<void> {
    const svm = await this.read(name);
    if (!svm || isMigrationFinished(svm)) return;
    const gvr = svm.spec?.resource ?? {};
    const target = await resolveResource(this.o.registry, gvr);
    if (target.state === 'missing') {
      await this.finish(name, 'Failed', target.message);
      return;
    }
    if (target.state === 'pending') {
      const created = Date.parse(svm.metadata?.creationTimestamp ?? '');
      if (Number.isNaN(created) || Date.now() - created < (this.o.pendingTimeoutMs ?? 60_000)) {
        this.queue.retryLater(name, 1000);
        return;
      }
      await this.finish(name, 'Failed', target.message);
      return;
    }
    const store = target.store;
    let current: StorageVersionMigration | undefined = svm;
    if (!isMigrationConditionTrue(svm, 'Running') || !svm.status?.resourceVersion) {
      // Upstream's resource-version controller: the resource's current resourceVersion, recorded once.
      const resourceVersion = svm.status?.resourceVersion || (await store.list(undefined, { limit: 1 })).metadata.resourceVersion;
      current = await this.writeStatus(name, (status) => ({
        ...status,
        resourceVersion: status.resourceVersion || resourceVersion,
        conditions: withMigrationCondition(status.conditions, 'Running', REASON_RUNNING, '', nowTimestamp()),
      }));
      if (!current) return;
    }
    try {
      const done = await this.migrate(name, current, store);
      if (!done) return;
    } catch (e) {
      if (this.stopped || !(e instanceof MigrationFailure)) throw e;
      this.log(`${name}: ${e.message}`);
      await this.finish(name, 'Failed', e.message);
      return;
    }
    await this.finish(name, 'Succeeded', '');
  }

  /**
   * Rewrites every object, page by page from spec.continueToken. True when the last page is done;
   * false when stopped or the migration went away or finished meanwhile.
   */
  private async migrate(name: string, svm: StorageVersionMigration, store: Store): Promise<boolean> {
    let token = svm.spec?.continueToken || undefined;
    let restarted = false;
    for (;;) {
      if (this.stopped) return false;
      let page;
      try {
        page = await store.list(undefined, { limit: this.pageSize, continue: token });
      } catch (e) {
        if (this.stopped) return false;
        if (token && e instanceof ApiError && e.code === 410 && e.statusMetadata?.continue) {
          // The token's snapshot was compacted (a long pause or a restart): go on from the same key over current data.
          token = e.statusMetadata.continue;
          continue;
        }
        if (token && !restarted && e instanceof ApiError && (e.code === 400 || e.code === 410)) {
          // A token this server cannot use: start over; objects already rewritten are only read again.
          this.log(`${name}: continue token refused (${e.message}); starting from the beginning`);
          token = undefined;
          restarted = true;
          continue;
        }
        throw new MigrationFailure(`migration encountered unhandled error: listing ${describeResource(svm.spec?.resource ?? {})}: ${(e as Error).message}`);
      }
      for (const item of page.items) {
        if (this.stopped) return false;
        try {
          await rewriteObject(store, item);
        } catch (e) {
          if (this.stopped) return false;
          throw new MigrationFailure(`migration encountered unhandled error: ${(e as Error).message}`);
        }
      }
      token = page.metadata.continue || undefined;
      const saved = await this.saveContinueToken(name, token);
      if (!saved) return false;
      if (!token) return true;
    }
  }

  private async read(name: string): Promise<StorageVersionMigration | undefined> {
    try {
      return (await this.store.get(undefined, name)) as unknown as StorageVersionMigration;
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return undefined;
      throw e;
    }
  }

  /**
   * Read, change, compare-and-swap; a conflict reads again. Undefined when the migration is gone,
   * finished, or `change` declines (returns undefined).
   */
  private async write(name: string, subresource: 'status' | undefined, change: (svm: StorageVersionMigration) => StorageVersionMigration | undefined): Promise<StorageVersionMigration | undefined> {
    for (let attempt = 1; ; attempt++) {
      const svm = await this.read(name);
      if (!svm || isMigrationFinished(svm)) return undefined;
      const next = change(deepClone(svm));
      if (!next) return undefined;
      try {
        const res = await this.store.update(undefined, name, next as unknown as Obj, { subresource, fieldManager: this.fieldManager, fieldValidation: 'Ignore' });
        return res.object as unknown as StorageVersionMigration;
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) return undefined;
        if (e instanceof ApiError && e.code === 409 && attempt < WRITE_ATTEMPTS) continue;
        throw e;
      }
    }
  }

  private writeStatus(name: string, change: (status: StorageVersionMigrationStatus) => StorageVersionMigrationStatus): Promise<StorageVersionMigration | undefined> {
    return this.write(name, 'status', (svm) => ({ ...svm, status: change(svm.status ?? {}) }));
  }

  /** spec.continueToken through the main endpoint (it is a spec field); removed after the last page. */
  private saveContinueToken(name: string, token: string | undefined): Promise<StorageVersionMigration | undefined> {
    return this.write(name, undefined, (svm) => {
      const spec = { ...(svm.spec ?? { resource: {} }) };
      if (token) spec.continueToken = token;
      else delete spec.continueToken;
      return { ...svm, spec };
    });
  }

  private async finish(name: string, type: 'Succeeded' | 'Failed', message: string): Promise<void> {
    const reason = type === 'Succeeded' ? REASON_SUCCEEDED : REASON_FAILED;
    await this.writeStatus(name, (status) => ({ ...status, conditions: withMigrationCondition(status.conditions, type, reason, message, nowTimestamp()) }));
  }
}
