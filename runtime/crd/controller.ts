// The server-internal CRD controller (upstream's naming, establishing and finalizer controllers in
// one): driven by an informer on customresourcedefinitions (its first state covers the
// CRDs already in storage). For each CRD it
//   1. sets status.acceptedNames and NamesAccepted (Established False Installing) through /status,
//   2. then Established True InitialNamesAccepted through /status (False InvalidCABundle while
//      the conversion webhook's caBundle is not valid PEM: not served until it is fixed),
//   3. then serves the custom resources (CustomResourceServingTarget.install);
// and for a deleted CRD (the CRD strategy added the cleanup finalizer and Terminating
// InstanceDeletionPending) it sets Terminating InstanceDeletionInProgress, deletes every custom
// resource, sets Terminating False InstanceDeletionCompleted (False NeverEstablished, deleting
// nothing, for a CRD that was never Established) and removes the finalizer; the CRD then goes away
// and its endpoints with it.
// It records no Events: upstream's naming, establishing and finalizer controllers record none
// (apiextensions-apiserver pkg/controller; see runtime/events/README.md); the conditions say it all.

import { Informer } from '../controller/informer.ts';
import { WorkQueue } from '../controller/work-queue.ts';
import { ApiError } from '../errors/api-error.ts';
import { deepClone, deepEqual, meta, metaOf, nowTimestamp, type Obj } from '../api/object.ts';
import type { Registry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';
import { CRD_CLEANUP_FINALIZER } from './strategy.ts';
import { calculateNames, conditionEquivalent, establishedCondition, findCondition, isConditionTrue, sameNames, setCondition, type BuiltinResourceNames } from './names.ts';
import type { CRDCondition, CustomResourceDefinition } from './types.ts';

/** What the controller drives: the serving of custom resources (runtime/http/custom-resources.ts). */
export interface CustomResourceServingTarget {
  install(crd: CustomResourceDefinition): void;
  uninstall(name: string): void;
  /** A store at the CRD's storage version (for deleting its custom resources). */
  storageStore(crd: CustomResourceDefinition): Store;
}

export interface CRDControllerOptions {
  registry: Registry;
  serving: CustomResourceServingTarget;
  /** Built-in resources, whose names CRDs of the same group may not take. */
  builtins: readonly BuiltinResourceNames[];
  /** Problems the controller retries (default: stderr). */
  log?: (message: string) => void;
  /** The manager recorded for the controller's writes. */
  fieldManager?: string;
}

const CRD_GROUP = 'apiextensions.cluster.io';
const CRD_PLURAL = 'customresourcedefinitions';

export class CRDController {
  /** Every CRD as stored (read-only objects; copies are made to write). */
  private readonly informer: Informer;
  private readonly queue: WorkQueue;
  private readonly store: Store;

  constructor(private readonly o: CRDControllerOptions) {
    const store = o.registry.storeFor(CRD_GROUP, CRD_PLURAL);
    if (!store) throw new Error('no customresourcedefinitions store');
    this.store = store;
    this.queue = new WorkQueue({
      reconcile: (name) => this.reconcile(name),
      ignore: (e) => e instanceof ApiError && (e.code === 409 || e.code === 404), // a newer event follows
      log: (m) => this.log(m),
    });
    // a CRD's change, and its going (also while no watch ran), are looked at with its group's
    this.informer = new Informer(store, {
      onChange: (_type, obj) => this.enqueueGroup((obj as unknown as CustomResourceDefinition).spec?.group, metaOf(obj).name ?? ''),
      log: (m) => this.log(m),
    });
  }

  private log(m: string): void {
    (this.o.log ?? ((x: string) => process.stderr.write(`crd controller: ${x}\n`)))(m);
  }

  /** Starts the watch; resolves once the CRDs in storage at start are reconciled (bounded wait). */
  async start(initialWaitMs = 15_000): Promise<void> {
    await this.informer.start();
    await this.queue.settled(Date.now() + initialWaitMs);
  }

  stop(): void {
    this.informer.stop();
    this.queue.stop();
  }

  private all(): CustomResourceDefinition[] {
    return this.informer.list() as unknown as CustomResourceDefinition[];
  }

  /** A change can free or take names of the other CRDs of the group: they are looked at again too. */
  private enqueueGroup(group: string | undefined, name: string): void {
    this.queue.add(name);
    for (const c of this.all()) {
      const n = c.metadata?.name ?? '';
      if (n !== name && c.spec?.group === group && !isConditionTrue(c, 'NamesAccepted')) this.queue.add(n);
    }
  }

  private async reconcile(name: string): Promise<void> {
    const crd = this.informer.get(name) as unknown as CustomResourceDefinition | undefined;
    if (!crd) {
      this.o.serving.uninstall(name);
      return;
    }
    if (crd.metadata?.deletionTimestamp) {
      // Terminating: still served (no creates) while the custom resources are deleted.
      if (isConditionTrue(crd, 'Established')) this.o.serving.install(crd);
      await this.finalize(crd);
      return;
    }
    const now = nowTimestamp();
    // Naming controller: only while spec.names differ from acceptedNames, and only writing when
    // acceptedNames or NamesAccepted change (so it never undoes the establishing controller's
    // Established False InvalidCABundle, which would make the two write in turn forever).
    if (!sameNames(crd.spec?.names, crd.status?.acceptedNames)) {
      const others = this.all().filter((c) => c.metadata?.name !== name);
      const names = calculateNames(crd, { crds: others, builtins: this.o.builtins });
      if (!deepEqual(names.acceptedNames, crd.status?.acceptedNames) || !conditionEquivalent(names.namesAccepted, findCondition(crd, 'NamesAccepted'))) {
        let conditions = setCondition(crd.status?.conditions, names.namesAccepted, now);
        conditions = setCondition(conditions, names.established, now);
        // acceptedNames may carry "" for a plural or kind that conflicts: the status rules accept that.
        await this.writeStatus(crd, { ...(crd.status ?? {}), acceptedNames: names.acceptedNames, conditions });
        return; // the watch brings the next step
      }
    }
    // Establishing controller: it looks again at every change of a CRD not yet Established (a
    // fixed caBundle establishes it).
    if (!isConditionTrue(crd, 'Established')) {
      const est = establishedCondition(crd);
      if (est && !conditionEquivalent(est, findCondition(crd, 'Established'))) {
        await this.writeStatus(crd, { ...(crd.status ?? {}), conditions: setCondition(crd.status?.conditions, est, now) });
        return;
      }
    }
    // Served only once Established (upstream's discovery and this server's endpoints alike).
    if (isConditionTrue(crd, 'Established')) this.o.serving.install(crd);
    else this.o.serving.uninstall(name);
  }

  private async writeStatus(crd: CustomResourceDefinition, status: NonNullable<CustomResourceDefinition['status']>): Promise<void> {
    const body = deepClone(crd) as unknown as Obj;
    body.status = status;
    await this.store.update(undefined, crd.metadata?.name ?? '', body, { subresource: 'status', fieldManager: this.o.fieldManager ?? 'clusterspec-apiserver', fieldValidation: 'Ignore' });
  }

  private terminating(crd: CustomResourceDefinition, c: Omit<CRDCondition, 'type'>): NonNullable<CustomResourceDefinition['status']> {
    return { ...(crd.status ?? {}), conditions: setCondition(crd.status?.conditions, { type: 'Terminating', ...c }, nowTimestamp()) };
  }

  /** The finalizer controller. */
  private async finalize(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata?.name ?? '';
    const finalizers = (metaOf(crd as unknown as Obj).finalizers ?? []) as string[];
    if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) return;
    const cond = findCondition(crd, 'Terminating');
    const done = cond?.reason === 'InstanceDeletionCompleted' || cond?.reason === 'NeverEstablished';
    if (!done && cond?.reason !== 'InstanceDeletionInProgress' && cond?.reason !== 'InstanceDeletionCheck') {
      await this.writeStatus(crd, this.terminating(crd, { status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }));
      return;
    }
    if (!done && !isConditionTrue(crd, 'Established')) {
      // Never served, so no custom resource can exist (upstream skips the deletion likewise).
      await this.writeStatus(crd, this.terminating(crd, { status: 'False', reason: 'NeverEstablished', message: 'resource was never established' }));
      return;
    }
    if (!done) {
      const store = this.o.serving.storageStore(crd);
      const listed = await store.list(undefined, {});
      for (const item of listed.items) {
        const m = metaOf(item);
        if (m.deletionTimestamp) continue;
        try {
          await store.delete(m.namespace, m.name as string, {});
        } catch (e) {
          if (!(e instanceof ApiError && e.code === 404)) throw e;
        }
      }
      const left = await store.list(undefined, { limit: 1 });
      if (left.items.length) {
        // Custom resources with finalizers of their own: wait for them.
        if (cond.reason !== 'InstanceDeletionCheck') {
          await this.writeStatus(crd, this.terminating(crd, { status: 'True', reason: 'InstanceDeletionCheck', message: 'could not confirm zero CustomResources remaining: instances with finalizers remain' }));
        }
        this.queue.retryLater(name, 1000);
        return;
      }
      await this.writeStatus(crd, this.terminating(crd, { status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' }));
      return;
    }
    // Remove the finalizer: the CRD goes once no finalizer is left.
    this.o.serving.uninstall(name);
    const body = deepClone(crd) as unknown as Obj;
    meta(body).finalizers = finalizers.filter((f) => f !== CRD_CLEANUP_FINALIZER);
    await this.store.update(undefined, name, body, { fieldManager: this.o.fieldManager ?? 'clusterspec-apiserver', fieldValidation: 'Ignore' });
  }
}
