// `clusterspec generate` for a project: a spec (or CRD manifests) in, the same artifact kinds as this
// repository's out/ (types, validators, OpenAPI v2/v3, CRDs, and whatever generators/index.ts adds) out.
import { join } from 'node:path';
import { loadSpec } from '../model/load.ts';
import { checkModel } from '../model/check.ts';
import { compose } from '../compose.ts';
import type { OutputFile } from '../output.ts';
import type { CRDObjectValidator } from '../../runtime/crd/validate-crd.ts';
import type { ResolvedProject } from './config.ts';
import { modelsFromCrds } from './crd-model.ts';
import { META_SHAPES_FILE, PLATFORM_OUT, RUNTIME_DIR } from './platform-library.ts';
import { projectProfile } from './profiles.ts';
import { projectCrdFiles } from './own-group-crds.ts';
import { hasMultiVersionKinds, modelsByVersion } from './versions.ts';
import { rebaseRuntimeImports } from './runtime-imports.ts';

/** `crdObjectRules`: the generated CustomResourceDefinition validator, which checks CRD input (the CLI hands in out/'s). */
export async function generateProject(project: ResolvedProject, crdObjectRules: CRDObjectValidator): Promise<OutputFile[]> {
  let files: OutputFile[];
  if (project.spec) {
    const spec = await loadSpec(project.root, { specDir: project.spec, libraryFiles: project.platformShapes ? [META_SHAPES_FILE] : [] });
    checkModel(spec);
    if (!hasMultiVersionKinds(spec.model)) {
      files = rebaseRuntimeImports(await compose(spec.model, projectProfile(true, project.crdFlavor)), PLATFORM_OUT, project.out, RUNTIME_DIR);
    } else {
      // A kind in several versions: each version's artifacts under <version>/, each kind's CRD (all its versions) in crds/.
      const versions = modelsByVersion(spec.model);
      files = projectCrdFiles(versions.map((v) => v.model), project.crdFlavor);
      for (const { version, model } of versions) {
        const composed = rebaseRuntimeImports(await compose(model, projectProfile(false, project.crdFlavor)), PLATFORM_OUT, join(project.out, version), RUNTIME_DIR);
        for (const f of composed) files.push({ path: `${version}/${f.path}`, content: f.content });
      }
    }
  } else {
    // CRD input: a kind usually has several versions; each version's artifacts go to <version>/.
    files = [];
    for (const { version, spec } of modelsFromCrds(project.root, project.crds!, crdObjectRules)) {
      checkModel(spec);
      const composed = rebaseRuntimeImports(await compose(spec.model, projectProfile(false, project.crdFlavor)), PLATFORM_OUT, join(project.out, version), RUNTIME_DIR);
      for (const f of composed) files.push({ path: `${version}/${f.path}`, content: f.content });
    }
  }
  return files;
}
