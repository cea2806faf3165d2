// Bearer-token authentication with a static token file (api-conventions 10):
// CSV `token,user,uid[,"g1,g2"]`; rows with an empty token are skipped; a later duplicate wins.

import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';

export interface UserInfo {
  name: string;
  uid: string;
  groups: string[];
}

/** Splits one CSV line, honouring double quotes (`""` inside quotes is a quote). */
export function splitCsvLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

export class TokenAuthenticator {
  private readonly tokens = new Map<string, UserInfo>();
  /** What authenticate returns per token (with system:authenticated), built once: shared and frozen. */
  private readonly authenticated = new Map<string, UserInfo>();

  static fromCsv(text: string): TokenAuthenticator {
    const a = new TokenAuthenticator();
    text.split(/\r?\n/).forEach((line, i) => {
      if (line.trim() === '' || line.trimStart().startsWith('#')) return;
      const cols = splitCsvLine(line).map((c) => c.trim());
      if (cols.length < 3) throw new Error(`token file line ${i + 1}: need at least 3 columns (token,user,uid)`);
      const [token, name, uid, groups] = cols;
      if (!token) return;
      const user = { name, uid, groups: groups ? groups.split(',').map((g) => g.trim()).filter(Boolean) : [] };
      a.tokens.set(token, user);
      a.authenticated.set(token, Object.freeze({ ...user, groups: Object.freeze([...user.groups, 'system:authenticated']) as string[] }));
    });
    return a;
  }

  static fromFile(path: string): TokenAuthenticator {
    return TokenAuthenticator.fromCsv(readFileSync(path, 'utf8'));
  }

  get size(): number {
    return this.tokens.size;
  }

  /**
   * `undefined`: no credentials; `null`: credentials given but invalid (401, never anonymous).
   * The scheme name is case-insensitive; an empty token counts as no credentials.
   */
  authenticate(headers: IncomingHttpHeaders): UserInfo | undefined | null {
    const h = headers.authorization;
    if (!h) return undefined;
    // The common header, `Bearer <token>` of a known token: one lookup instead of a regex per request.
    if (h.startsWith('Bearer ')) {
      const user = this.authenticated.get(h.slice(7));
      if (user) return user;
    }
    const m = /^\s*bearer\s+(.*)$/i.exec(h);
    if (!m) return null;
    const token = m[1].trim();
    if (token === '') return undefined;
    return this.authenticated.get(token) ?? null;
  }
}
