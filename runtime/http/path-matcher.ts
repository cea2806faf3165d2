// A compiled path matcher: route templates (`/api/v1/namespaces/{namespace}/configmaps/{name}`)
// become a segment trie, so a request is matched in O(segments) instead of scanning every route.
// Literal segments win over parameters; on a dead end the matcher backtracks to the parameter branch.

export interface PathMatch<T> {
  /** The entries registered for the matched template, by HTTP method. */
  byMethod: ReadonlyMap<string, T>;
  /** Parameter values by name (as the matched template names them). */
  params: Record<string, string>;
  template: string;
}

interface Leaf<T> {
  template: string;
  paramNames: string[];
  byMethod: Map<string, T>;
}

interface Node<T> {
  literal: Map<string, Node<T>>;
  param: Node<T> | undefined;
  leaf: Leaf<T> | undefined;
}

function newNode<T>(): Node<T> {
  return { literal: new Map(), param: undefined, leaf: undefined };
}

function splitPath(path: string): string[] {
  const trimmed = path.startsWith('/') ? path.slice(1) : path;
  return trimmed === '' ? [] : trimmed.split('/');
}

export class PathMatcher<T> {
  private readonly root: Node<T> = newNode();

  /** Registers `value` for `method` on a template; the same template may hold several methods. */
  add(template: string, method: string, value: T): void {
    this.recent.clear();
    let node = this.root;
    const names: string[] = [];
    for (const seg of splitPath(template)) {
      const m = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(seg);
      if (m) {
        names.push(m[1]);
        node.param ??= newNode();
        node = node.param;
      } else {
        let next = node.literal.get(seg);
        if (!next) {
          next = newNode();
          node.literal.set(seg, next);
        }
        node = next;
      }
    }
    if (!node.leaf) node.leaf = { template, paramNames: names, byMethod: new Map() };
    else if (node.leaf.template !== template) {
      // Same shape, other parameter names (`{name}` vs `{namespace}` at one position): keep the first
      // names; values are positional, so both templates resolve alike.
    }
    if (node.leaf.byMethod.has(method)) throw new Error(`path matcher: duplicate route ${method} ${template}`);
    node.leaf.byMethod.set(method, value);
  }

  /** Recent answers by path: clients ask for the same few paths over and over. Bounded; shared, never mutated. */
  private readonly recent = new Map<string, PathMatch<T> | undefined>();

  /** Matches a URL path (without query); segments are percent-decoded. Undefined when nothing matches. */
  match(path: string): PathMatch<T> | undefined {
    let m = this.recent.get(path);
    if (m === undefined && !this.recent.has(path)) {
      m = this.matchUncached(path);
      if (this.recent.size >= 4096) this.recent.clear();
      this.recent.set(path, m);
    }
    return m;
  }

  private matchUncached(path: string): PathMatch<T> | undefined {
    // Plain loops, no closures: this runs on every request, and tsx's keepNames makes each closure a call.
    const segs = splitPath(path);
    for (let i = 0; i < segs.length; i++) {
      if (!segs[i].includes('%')) continue;
      try {
        segs[i] = decodeURIComponent(segs[i]);
      } catch {
        return undefined;
      }
    }
    const values: string[] = [];
    const leaf = this.walk(this.root, segs, 0, values);
    if (!leaf) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < leaf.paramNames.length; i++) params[leaf.paramNames[i]] = values[i];
    return { byMethod: leaf.byMethod, params, template: leaf.template };
  }

  private walk(node: Node<T>, segs: string[], i: number, values: string[]): Leaf<T> | undefined {
    if (i === segs.length) return node.leaf;
    const seg = segs[i];
    const lit = node.literal.get(seg);
    if (lit) {
      const found = this.walk(lit, segs, i + 1, values);
      if (found) return found;
    }
    if (node.param && seg !== '') {
      values.push(seg);
      const found = this.walk(node.param, segs, i + 1, values);
      if (found) return found;
      values.pop();
    }
    return undefined;
  }
}
