// The conditions of a StorageVersionMigration (spec/resources/storageversionmigration.yaml,
// MigrationCondition): Running, then Succeeded or Failed. Pure functions; the controller writes
// what they return through /status.

import type { MigrationCondition, StorageVersionMigration } from './types.ts';

export type MigrationConditionType = MigrationCondition['type'];

/** Upstream's reasons (pkg/controller/storageversionmigrator). */
export const REASON_RUNNING = 'StorageVersionMigrationInProgress';
export const REASON_SUCCEEDED = 'StorageVersionMigrationSucceeded';
export const REASON_FAILED = 'StorageVersionMigrationFailed';

export function findMigrationCondition(svm: StorageVersionMigration, type: MigrationConditionType): MigrationCondition | undefined {
  return (svm.status?.conditions ?? []).find((c) => c.type === type);
}

export function isMigrationConditionTrue(svm: StorageVersionMigration, type: MigrationConditionType): boolean {
  return findMigrationCondition(svm, type)?.status === 'True';
}

/** Succeeded or Failed is True: the migration is over and never runs again. */
export function isMigrationFinished(svm: StorageVersionMigration): boolean {
  return isMigrationConditionTrue(svm, 'Succeeded') || isMigrationConditionTrue(svm, 'Failed');
}

/**
 * The conditions after `type` becomes True (upstream's setStatusConditions): unchanged when it is
 * already True; a terminal condition turns Running False in the same write, because the status
 * rules refuse Running True beside Succeeded or Failed True. Returns a new list in the order
 * given, with a new condition appended; `lastUpdateTime` is `now` for every condition changed.
 */
export function withMigrationCondition(
  conditions: readonly MigrationCondition[] | undefined,
  type: MigrationConditionType,
  reason: string,
  message: string,
  now: string,
): MigrationCondition[] {
  const list = (conditions ?? []).map((c) => ({ ...c }));
  if (list.some((c) => c.type === type && c.status === 'True')) return list;
  if (type !== 'Running') {
    const running = list.find((c) => c.type === 'Running');
    if (running && running.status !== 'False') {
      running.status = 'False';
      running.lastUpdateTime = now;
    }
  }
  const next: MigrationCondition = { type, status: 'True', lastUpdateTime: now, reason, message };
  const i = list.findIndex((c) => c.type === type);
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}
