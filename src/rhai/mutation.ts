/** Conservative analysis of whether a piece of script may change a variable's array or map, so copies can be skipped. */

import type { FnDef, Node } from './ast.js';
import { PURE } from './builtin-table.js';

/** Mutation-analysis caches, one per compiled script (keyed by its function table). */
const mutCaches = new WeakMap<Map<string, FnDef>, WeakMap<Node, Map<string, boolean>>>();

/** Mutation analysis for one compiled script, cached per node and variable name. */
export class MutationScan {
  private readonly cache: WeakMap<Node, Map<string, boolean>>;

  constructor(private readonly fns: Map<string, FnDef>) {
    this.cache = mutCaches.get(fns) ?? new WeakMap();
    mutCaches.set(fns, this.cache);
  }

  /**
   * Whether evaluating `body` might change the array or map held in variable `name`: any write
   * into an array or map, any mutating or script-defined method, any function-style mutating
   * built-in, or a closure capturing `name`. Conservative; cached per node. Lets loops and
   * callbacks skip copying values they only read.
   */
  mayMutate(body: Node, name: string): boolean {
    let byName = this.cache.get(body);
    if (!byName) {
      byName = new Map();
      this.cache.set(body, byName);
    }
    let r = byName.get(name);
    if (r === undefined) {
      r = this.scanMutation(body, name);
      byName.set(name, r);
    }
    return r;
  }

  private scanMutation(n: unknown, name: string): boolean {
    if (Array.isArray(n)) {
      for (const x of n) if (this.scanMutation(x, name)) return true;
      return false;
    }
    if (n === null || typeof n !== 'object') return false;
    const node = n as Node;
    // Any write into an array or map (whatever variable it goes through, since that variable
    // may alias the same value) counts; rebinding a plain variable does not.
    switch (node.k) {
      case 'assign':
        if (node.target.k !== 'var' || node.target.name === name) return true;
        break;
      case 'method':
        if (!PURE.has(node.name) || this.fns.has(node.key) || this.fns.has(node.key1)) return true;
        break;
      case 'call':
        if (!PURE.has(node.name) && !this.fns.has(node.key) && node.args.length > 0) return true;
        break;
      case 'closure':
        if (node.captures.includes(name)) return true;
        break;
      case 'lit':
        return false;
    }
    for (const key in node) {
      if (key === 'k' || key === 'l' || key === 'c') continue;
      const child = (node as unknown as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object' && this.scanMutation(child, name)) return true;
    }
    return false;
  }
}
