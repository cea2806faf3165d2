// What the migration controller reads and writes of a StorageVersionMigration
// (spec/resources/storageversionmigration.yaml), declared here: runtime/ reads nothing from out/.
// test/architecture/local-types.test.ts checks that the generated types fit these.

/** The resource a migration rewrites. */
export interface GroupVersionResource {
  group?: string;
  version?: string;
  resource?: string;
}

export interface MigrationCondition {
  type: 'Running' | 'Succeeded' | 'Failed';
  status: 'True' | 'False' | 'Unknown';
  lastUpdateTime?: string;
  reason?: string;
  message?: string;
}

export interface StorageVersionMigrationSpec {
  resource: GroupVersionResource;
  /** Where the next page of the list starts; saved after each page so that a restart resumes. */
  continueToken?: string;
}

export interface StorageVersionMigrationStatus {
  conditions?: MigrationCondition[];
  /** The resource's list revision when the migration started. */
  resourceVersion?: string;
}

export interface StorageVersionMigration {
  apiVersion?: string;
  kind?: string;
  /** The fields of ObjectMeta the controller reads; the rest passes through untouched. */
  metadata?: { name?: string; creationTimestamp?: string };
  spec?: StorageVersionMigrationSpec;
  status?: StorageVersionMigrationStatus;
}
