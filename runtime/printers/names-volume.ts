// Whether a PVC names its volume: upstream prints a claim's Capacity and Access Modes only then.
import { isObj, type Obj } from '../api/object.ts';

export function namesVolume(obj: Obj): boolean {
  const spec = obj.spec;
  return isObj(spec) && typeof spec.volumeName === 'string' && spec.volumeName !== '';
}
