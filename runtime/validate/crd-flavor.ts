// CustomResourceDefinitions written for upstream Kubernetes (apiextensions.k8s.io/v1, x-kubernetes-*
// extensions) read as this platform's (apiextensions.cluster.io/v1, x-cluster-*): the same fields under our names.
type Obj = Record<string, unknown>;

export const CRD_API_VERSIONS = ['apiextensions.cluster.io/v1', 'apiextensions.k8s.io/v1'] as const;

export function isCrdObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && (v as Obj).kind === 'CustomResourceDefinition' && CRD_API_VERSIONS.includes((v as Obj).apiVersion as (typeof CRD_API_VERSIONS)[number]);
}

function renameExtensions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(renameExtensions);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k.startsWith('x-kubernetes-') ? `x-cluster-${k.slice(13)}` : k, renameExtensions(v)]));
}

/** A copy in apiextensions.cluster.io/v1 form (an upstream CRD's schemas get the x-cluster-* names). */
export function asClusterCrd(crd: Obj): Obj {
  if (crd.apiVersion === 'apiextensions.cluster.io/v1') return crd;
  return { ...(renameExtensions(crd) as Obj), apiVersion: 'apiextensions.cluster.io/v1' };
}
