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
import { eventsEventStrategy } from './events-event.ts';

const STRATEGIES: Record<string, Strategy> = {
  Secret: secretStrategy,
  ConfigMap: configMapStrategy,
  Namespace: namespaceStrategy,
  VolumeAttachment: statusKeepsMetadataStrategy,
  CustomResourceDefinition: customResourceDefinitionStrategy,
  ValidatingWebhookConfiguration: validatingWebhookConfigurationStrategy,
  Event: eventStrategy,
};

/** Strategies of kinds whose name another group's kind has too, by `<group>/<kind>`. */
const GROUP_STRATEGIES: Record<string, Strategy> = {
  'events.cluster.io/Event': eventsEventStrategy,
};

/** A strategy whose behaviour depends on feature gates is built for the server's gates. */
export function strategyFor(kind: string, featureGates: Record<string, boolean> = {}, group = ''): Strategy {
  if (group !== '' && GROUP_STRATEGIES[`${group}/${kind}`]) return GROUP_STRATEGIES[`${group}/${kind}`];
  if (kind === 'PersistentVolumeClaim') return createPersistentVolumeClaimStrategy({ ...featureGateDefaults, ...featureGates });
  return STRATEGIES[kind] ?? {};
}
