// The strategies of the resources that need behaviour beyond their schema, by kind.

import type { Strategy } from '../strategy.ts';
import { customResourceDefinitionStrategy } from './customresourcedefinition.ts';
import { namespaceStrategy } from './namespace.ts';
import { createPersistentVolumeClaimStrategy } from './persistentvolumeclaim.ts';
import { featureGateDefaults } from '../../../out/validators/feature-gates.ts';
import { secretStrategy } from './secret.ts';
import { configMapStrategy } from './configmap.ts';
import { statusKeepsMetadataStrategy } from './status-metadata.ts';
import { validatingWebhookConfigurationStrategy } from './validatingwebhookconfiguration.ts';
import { eventStrategy } from './event.ts';

const STRATEGIES: Record<string, Strategy> = {
  Secret: secretStrategy,
  ConfigMap: configMapStrategy,
  Namespace: namespaceStrategy,
  VolumeAttachment: statusKeepsMetadataStrategy,
  CustomResourceDefinition: customResourceDefinitionStrategy,
  ValidatingWebhookConfiguration: validatingWebhookConfigurationStrategy,
  Event: eventStrategy,
};

/** A strategy whose behaviour depends on feature gates is built for the server's gates. */
export function strategyFor(kind: string, featureGates: Record<string, boolean> = {}): Strategy {
  if (kind === 'PersistentVolumeClaim') return createPersistentVolumeClaimStrategy({ ...featureGateDefaults, ...featureGates });
  return STRATEGIES[kind] ?? {};
}
