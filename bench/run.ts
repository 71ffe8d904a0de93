/**
 * `npm run bench -- <name>`: runs `bench/<name>.ts`, whose default export
 * (or `run()`) prints its results. Timings are printed, never asserted.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const KNOWN = [
  'engine',
  'validate',
  'rhai',
  'history',
  'burst',
  'floor',
  'crash',
  'long',
  'fanout',
  'blobs',
  'tokens',
  'cache',
  'days',
];

function available(): string[] {
  const found = readdirSync(here)
    .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
    .map((f) => f.slice(0, -3));
  return [...new Set([...KNOWN.filter((k) => found.includes(k)), ...found])];
}

type BenchModule = { default?: unknown; run?: unknown };

async function main(argv: string[]): Promise<number> {
  const name = argv[0];
  if (!name || !/^[a-z][a-z0-9-]*$/.test(name)) {
    process.stderr.write(`usage: npm run bench -- <name> [args]; benches here: ${available().join(', ')}\n`);
    return 2;
  }
  const file = join(here, `${name}.ts`);
  if (!existsSync(file)) {
    process.stderr.write(`no bench named ${name}; benches here: ${available().join(', ')}\n`);
    return 2;
  }
  const mod = (await import(pathToFileURL(file).href)) as BenchModule;
  const entry = typeof mod.default === 'function' ? mod.default : typeof mod.run === 'function' ? mod.run : undefined;
  if (!entry) {
    process.stderr.write(`bench/${name}.ts exports neither a default function nor run()\n`);
    return 2;
  }
  await (entry as (args: string[]) => unknown)(argv.slice(1));
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
