/**
 * Which folders may import which: the graph of value imports between
 * folders has no cycle, so each folder can be read, tested and changed
 * knowing only the ones below it. `import type` of another folder's data
 * shapes is not counted: it leaves nothing in the compiled code. A folder
 * is `src/<name>`, plus `src/runtime/node` (the runtime's Node-only half),
 * `workflows` and `activities`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function folderOf(file: string): string {
  const rel = relative(ROOT, file);
  if (rel.startsWith('src/runtime/node/')) return 'src/runtime/node';
  const parts = rel.split('/');
  return parts[0] === 'src' && parts.length > 2 ? `src/${parts[1]}` : parts[0] === 'src' ? 'src' : parts[0]!;
}

/** Folder → folders it imports values from, each with the files that do it. */
function valueGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of ['src', 'workflows', 'activities'].flatMap((d) => files(join(ROOT, d)))) {
    const from = folderOf(file);
    const text = readFileSync(file, 'utf8');
    // Whole `import ... from '...'` and `export ... from '...'` statements, without `import type`/`export type`.
    for (const m of text.matchAll(/^(import|export)(?!\s+type\b)[^;]*?from\s+'(\.[^']+)\.js';/gms)) {
      const to = folderOf(resolve(dirname(file), `${m[2]}.ts`));
      if (to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      edges.set(to, [...(edges.get(to) ?? []), relative(ROOT, file)]);
      graph.set(from, edges);
    }
  }
  return graph;
}

function cycles(graph: Map<string, Map<string, string[]>>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const visit = (node: string, path: string[]) => {
    if (path.includes(node)) {
      found.push([...path.slice(path.indexOf(node)), node]);
      return;
    }
    if (done.has(node)) return;
    for (const next of graph.get(node)?.keys() ?? []) visit(next, [...path, node]);
    done.add(node);
  };
  for (const node of graph.keys()) visit(node, []);
  return found;
}

describe('folder imports', () => {
  const graph = valueGraph();

  it('form no cycle', () => {
    expect(graph.size).toBeGreaterThan(8);
    expect(cycles(graph).map((c) => c.join(' -> '))).toEqual([]);
  });

  it('keep the blueprint loader below the engine and the runtime below the activities', () => {
    expect([...(graph.get('src/blueprint')?.keys() ?? [])]).not.toContain('src/context');
    expect([...(graph.get('src/runtime')?.keys() ?? [])]).not.toContain('activities');
    expect([...(graph.get('src/runtime')?.keys() ?? [])]).not.toContain('src/runtime/node');
  });

  it('keep workflow code away from the Node-only runtime and the worker', () => {
    const reached = [...(graph.get('workflows')?.keys() ?? [])];
    expect(reached).not.toContain('src/runtime/node');
    expect(reached).not.toContain('src/worker');
  });

  it('finds a cycle when there is one', () => {
    const looped = new Map([
      ['a', new Map([['b', ['a.ts']]])],
      ['b', new Map([['a', ['b.ts']]])],
    ]);
    expect(cycles(looped)).toEqual([['a', 'b', 'a']]);
  });
});
