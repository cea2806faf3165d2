// The module the worker threads of `clusterspec validate --jobs` import the platform's validators
// from, by URL (runtime/ never imports out/): the compiled package's .js, or this .ts under tsx.
export { platformValidators as validators } from '../platform-validators.ts';

export const validatorsModule = { url: import.meta.url, exportName: 'validators' } as const;
