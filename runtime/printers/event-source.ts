// An Event's Source cell (upstream formatEventSource): the component (source.component, else
// reportingComponent) followed by `, <instance>` (source.host, else reportingInstance) when there is one.
// On an events.cluster.io Event the column's path is deprecatedSource and the component is reportingController.
import type { CellFormatter } from './types.ts';
import { isObj } from '../api/object.ts';

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const firstNonEmpty = (a: string, b: string): string => (a !== '' ? a : b);

export const eventSource: CellFormatter = (value, obj) => {
  const source = isObj(value) ? value : {};
  const component = firstNonEmpty(text(source.component), text(obj.reportingComponent ?? obj.reportingController));
  const instance = firstNonEmpty(text(source.host), text(obj.reportingInstance));
  return instance === '' ? component : `${component}, ${instance}`;
};
