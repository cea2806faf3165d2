// Keys repeated within one object of a JSON text, as sigs.k8s.io/json's strict decoding names them
// (`metadata.name`, `spec.items[0].name`): JSON.parse keeps the last and says nothing, so strict
// field validation scans the text. One pass, an explicit stack (deep nesting cannot overflow it).

type Frame = { object: true; path: string; keys: Set<string>; key: string; expectKey: boolean } | { object: false; path: string; index: number };

/** At most this many are reported (a hostile text may repeat a key a million times). */
const MAX_REPORTED = 100;

function childPath(f: Frame): string {
  if (f.object) return f.path === '' ? f.key : `${f.path}.${f.key}`;
  return `${f.path}[${f.index}]`;
}

/** The index of the quote closing the string that opens at `start`, or -1. */
function closingQuote(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i;
  }
  return -1;
}

/** The paths of repeated keys of a valid JSON text, in order of appearance, each once. */
export function findDuplicateFields(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const stack: Frame[] = [];
  for (let i = 0; i < text.length && out.length < MAX_REPORTED; i++) {
    const c = text.charCodeAt(i);
    const top = stack.length ? stack[stack.length - 1] : undefined;
    if (c === 0x7b || c === 0x5b) {
      const path = top ? childPath(top) : '';
      stack.push(c === 0x7b ? { object: true, path, keys: new Set(), key: '', expectKey: true } : { object: false, path, index: 0 });
    } else if (c === 0x7d || c === 0x5d) stack.pop();
    else if (c === 0x2c && top) {
      if (top.object) top.expectKey = true;
      else top.index++;
    } else if (c === 0x3a && top?.object) top.expectKey = false;
    else if (c === 0x22) {
      const end = closingQuote(text, i);
      if (end < 0) break;
      if (top?.object && top.expectKey) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        top.key = key;
        if (!top.keys.has(key)) top.keys.add(key);
        else {
          const path = childPath(top);
          if (!seen.has(path)) {
            seen.add(path);
            out.push(path);
          }
        }
      }
      i = end;
    }
  }
  return out;
}
