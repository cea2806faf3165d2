import { describe, expect, it } from 'vitest';
import type { MigrationCondition, StorageVersionMigration } from '../../out/types/index.ts';
import { isMigrationFinished, REASON_FAILED, REASON_RUNNING, REASON_SUCCEEDED, withMigrationCondition, type MigrationConditionType } from './conditions.ts';

const T0 = '2024-01-01T00:00:00Z';
const NOW = '2024-01-02T00:00:00Z';
const running = (status: MigrationCondition['status']): MigrationCondition => ({ type: 'Running', status, lastUpdateTime: T0, reason: REASON_RUNNING, message: '' });

describe('withMigrationCondition', () => {
  const cases: { name: string; before: MigrationCondition[] | undefined; type: MigrationConditionType; reason: string; message: string; after: MigrationCondition[] }[] = [
    {
      name: 'Running on a new migration',
      before: undefined,
      type: 'Running',
      reason: REASON_RUNNING,
      message: '',
      after: [{ type: 'Running', status: 'True', lastUpdateTime: NOW, reason: REASON_RUNNING, message: '' }],
    },
    {
      name: 'Running already True: unchanged (its time too)',
      before: [running('True')],
      type: 'Running',
      reason: REASON_RUNNING,
      message: 'other',
      after: [running('True')],
    },
    {
      name: 'Succeeded turns Running False in the same write',
      before: [running('True')],
      type: 'Succeeded',
      reason: REASON_SUCCEEDED,
      message: '',
      after: [
        { ...running('False'), lastUpdateTime: NOW },
        { type: 'Succeeded', status: 'True', lastUpdateTime: NOW, reason: REASON_SUCCEEDED, message: '' },
      ],
    },
    {
      name: 'Failed without Running (unknown resource)',
      before: [],
      type: 'Failed',
      reason: REASON_FAILED,
      message: 'resource does not exist in discovery',
      after: [{ type: 'Failed', status: 'True', lastUpdateTime: NOW, reason: REASON_FAILED, message: 'resource does not exist in discovery' }],
    },
    {
      name: 'a False condition of the same type is replaced in place',
      before: [{ type: 'Failed', status: 'False', lastUpdateTime: T0, reason: 'Earlier', message: '' }, running('True')],
      type: 'Failed',
      reason: REASON_FAILED,
      message: 'migration encountered unhandled error: boom',
      after: [
        { type: 'Failed', status: 'True', lastUpdateTime: NOW, reason: REASON_FAILED, message: 'migration encountered unhandled error: boom' },
        { ...running('False'), lastUpdateTime: NOW },
      ],
    },
    {
      name: 'Running already False keeps its time on success',
      before: [running('False')],
      type: 'Succeeded',
      reason: REASON_SUCCEEDED,
      message: '',
      after: [running('False'), { type: 'Succeeded', status: 'True', lastUpdateTime: NOW, reason: REASON_SUCCEEDED, message: '' }],
    },
  ];
  it.each(cases)('$name', ({ before, type, reason, message, after }) => {
    const copy = before ? structuredClone(before) : undefined;
    expect(withMigrationCondition(before, type, reason, message, NOW)).toEqual(after);
    expect(before).toEqual(copy); // the input is not changed
  });
});

describe('isMigrationFinished', () => {
  const svm = (conditions: MigrationCondition[]): StorageVersionMigration => ({ spec: { resource: {} }, status: { conditions } });
  it.each([
    ['no status', { spec: { resource: {} } } as StorageVersionMigration, false],
    ['Running', svm([running('True')]), false],
    ['Succeeded True', svm([running('False'), { type: 'Succeeded', status: 'True' }]), true],
    ['Failed True', svm([{ type: 'Failed', status: 'True' }]), true],
    ['Succeeded Unknown', svm([{ type: 'Succeeded', status: 'Unknown' }]), false],
    ['Failed False', svm([{ type: 'Failed', status: 'False' }]), false],
  ])('%s: %s', (_name, m, want) => {
    expect(isMigrationFinished(m)).toBe(want);
  });
});
