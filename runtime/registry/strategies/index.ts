// The strategies of the resources that need behaviour beyond their schema, by kind. Strategies of
// layers above the registry (the CRD strategy of runtime/crd) are handed to the Registry by the
// server's assembly (RegistryOptions.strategies) and take precedence over these.

import type { Strategy } from '../strategy.ts';
import { namespaceStrategy } from './namespace.ts';
import { createPersistentVolumeClaimStrategy } from './persistentvolumeclaim.ts';
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
  ValidatingWebhookConfiguration: validatingWebhookConfigurationStrategy,
  Event: eventStrategy,
};

/** Strategies of kinds whose name another group's kind has too, by `<group>/<kind>`. */
const GROUP_STRATEGIES: Record<string, Strategy> = {
  'events.cluster.io/Event': eventsEventStrategy,
};

/**
 * A strategy whose behaviour depends on feature gates is built for the server's gates: the
 * assembly's merge of the generated defaults and --feature-gates (an absent gate is off).
 */
export function strategyFor(kind: string, featureGates: Record<string, boolean> = {}, group = ''): Strategy {
  if (group !== '' && GROUP_STRATEGIES[`${group}/${kind}`]) return GROUP_STRATEGIES[`${group}/${kind}`];
  if (kind === 'PersistentVolumeClaim') return createPersistentVolumeClaimStrategy(featureGates);
  return STRATEGIES[kind] ?? {};
}
