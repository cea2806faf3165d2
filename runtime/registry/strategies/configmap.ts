// ConfigMap: `binaryData` values are []byte upstream, decoded with the body (runtime/registry/strategies/byte-fields.ts).

import type { Strategy } from '../strategy.ts';
import { decodeByteMap } from './byte-fields.ts';

export const configMapStrategy: Strategy = {
  prepareForCreate(obj) {
    decodeByteMap(obj, 'binaryData', 'ConfigMap');
  },
  prepareForUpdate(obj) {
    decodeByteMap(obj, 'binaryData', 'ConfigMap');
  },
};
