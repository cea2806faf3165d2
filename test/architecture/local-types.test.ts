// runtime/ declares the few generated types it reads (runtime never imports out/): the generated
// types must still fit those declarations, or a spec change would silently drift from the code that
// reads it. Checked by the type checker (`npm test` runs tsc over test/): a mismatch is a tsc error here.
import { describe, expectTypeOf, it } from 'vitest';
import type * as generated from '../../out/types/index.ts';
import type { OwnerReference } from '../../runtime/garbage-collector/owner-reference.ts';
import type * as migration from '../../runtime/migration/types.ts';

describe('generated types fit the local declarations of runtime/', () => {
  it('garbage collector: OwnerReference, both ways', () => {
    expectTypeOf<generated.OwnerReference>().toExtend<OwnerReference>();
    expectTypeOf<OwnerReference>().toExtend<generated.OwnerReference>();
  });

  it('migration: StorageVersionMigration and its parts', () => {
    expectTypeOf<generated.StorageVersionMigration>().toExtend<migration.StorageVersionMigration>();
    expectTypeOf<generated.StorageVersionMigrationSpec>().toExtend<migration.StorageVersionMigrationSpec>();
    expectTypeOf<generated.StorageVersionMigrationStatus>().toExtend<migration.StorageVersionMigrationStatus>();
    expectTypeOf<migration.MigrationCondition>().toExtend<generated.MigrationCondition>();
    expectTypeOf<migration.GroupVersionResource>().toExtend<generated.GroupVersionResource>();
  });
});
