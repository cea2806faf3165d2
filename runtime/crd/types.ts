// The CustomResourceDefinition shape (apiextensions.cluster.io/v1) as runtime/crd reads it.
// Loose on purpose: the objects come straight from JSON/YAML and are validated elsewhere.
import type { Schema, ValidationRule } from '../schema/types.ts';

export interface CRDNames {
  plural?: string;
  singular?: string;
  shortNames?: string[];
  kind?: string;
  listKind?: string;
  categories?: string[];
}

export interface CRDColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

export interface CRDScale {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface CRDVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: Schema };
  selectableFields?: { jsonPath: string }[];
  additionalPrinterColumns?: CRDColumn[];
  subresources?: { status?: Record<string, never> | Record<string, unknown>; scale?: CRDScale };
}

export interface CRDCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export interface CustomResourceDefinition {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; uid?: string; generation?: number; resourceVersion?: string; [k: string]: unknown };
  spec: {
    group: string;
    names: CRDNames;
    scope: 'Namespaced' | 'Cluster' | string;
    versions: CRDVersion[];
    conversion?: { strategy?: string; webhook?: unknown };
    preserveUnknownFields?: boolean;
  };
  status?: {
    acceptedNames?: CRDNames;
    conditions?: CRDCondition[];
    storedVersions?: string[];
    observedGeneration?: number;
  };
}

export type { Schema, ValidationRule };
