import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
/** The folders bundled into workflow code (`src/runtime/node/` is the runtime's Node-only half, not among them). */
const PURE_DIRS = [join(SRC, 'shapes'), join(SRC, 'context'), join(SRC, 'rhai'), join(SRC, 'runtime')];
const NODE_ONLY = join(SRC, 'runtime', 'node');
const FORBIDDEN = /from\s+['"](node:[^'"]+|zod|js-tiktoken|gpt-tokenizer[^'"]*|fs|path|crypto)['"]|require\(|import\(/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (path === NODE_ONLY) return [];
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const pureSources = () => PURE_DIRS.flatMap(sources);

/** Every module the engine reaches through relative imports, inside src/context or not. */
function reachable(start: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/from\s+['"](\.[^'"]+)\.js['"]/g)) {
      queue.push(resolve(dirname(file), `${m[1]}.ts`));
    }
  }
  return seen;
}

describe('engine purity', () => {
  it('no module the engine, the interpreter or the workflow-safe runtime loads imports Node built-ins, zod or the tokenizer', () => {
    const files = reachable(pureSources());
    expect([...files].filter((f) => f.startsWith(NODE_ONLY))).toEqual([]);
    expect(files.size).toBeGreaterThan(10);
    const offenders = [...files].filter((f) => FORBIDDEN.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('uses no clock or randomness', () => {
    const offenders = pureSources().filter((f) =>
      /Date\.now|new Date\(|Math\.random|performance\.now/.test(readFileSync(f, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
