/**
 * What `import 'leviath'` offers (docs/library.md#what-it-exports): the names pinned here are the
 * package's API, so a change to them must be made here too, on purpose. Values are read off the
 * module; types off its export statements, parsed by TypeScript.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as library from '../../src/library/index.js';

const ENTRY = join(import.meta.dirname, '..', '..', 'src', 'library', 'index.ts');

const VALUES = [
  'LeviathError',
  'connect',
  'createLeviathWorker',
  'formatDiagnostic',
  'isLeviathError',
  'leviathWorkerOptions',
  'loadBlueprint',
  'simulate',
  'validateBlueprint',
];

const TYPES = [
  'Blueprint',
  'BlueprintOptions',
  'BlueprintReport',
  'ConnectOptions',
  'Diagnostic',
  'LeviathClient',
  'LeviathRun',
  'LeviathWorkerConfig',
  'LeviathWorkerOptions',
  'Progress',
  'RunResult',
  'Severity',
  'SimOutput',
  'SimulateOptions',
  'SimulateResult',
  'StartOptions',
];

/** Every name the entry's source exports, values and types alike. */
function exportedNames(): string[] {
  const source = ts.createSourceFile(ENTRY, readFileSync(ENTRY, 'utf8'), ts.ScriptTarget.ES2022);
  const names: string[] = [];
  for (const s of source.statements) {
    if (ts.isExportDeclaration(s) && s.exportClause && ts.isNamedExports(s.exportClause))
      names.push(...s.exportClause.elements.map((e) => e.name.text));
    else if (ts.isFunctionDeclaration(s) && s.name && s.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword))
      names.push(s.name.text);
  }
  return names.sort();
}

describe("the library's surface", () => {
  it('exports these values and nothing else', () => {
    expect(Object.keys(library).sort()).toEqual(VALUES);
  });

  it('exports these types besides', () => {
    expect(exportedNames()).toEqual([...VALUES, ...TYPES].sort());
  });

  it('is the package entry: exports and types name what the build makes from src/library/index.ts', () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'));
    expect(pkg.exports['.']).toEqual({
      types: './dist/types/src/library/index.d.ts',
      import: './dist/index.mjs',
    });
    expect(pkg.types).toBe(pkg.exports['.'].types);
    const build = readFileSync(join(import.meta.dirname, '..', '..', 'scripts', 'build.mjs'), 'utf8');
    expect(build).toContain("index: join(ROOT, 'src', 'library', 'index.ts')");
    const tsconfig = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'tsconfig.build.json'), 'utf8'));
    expect(tsconfig.files).toEqual(['src/library/index.ts']);
    expect(tsconfig.compilerOptions.outDir).toBe('dist/types');
  });

  it('leaves the Temporal SDK unloaded until a client or worker is asked for', () => {
    // The entry imports the client and the worker factory for their types alone.
    const text = readFileSync(ENTRY, 'utf8');
    expect(text).not.toMatch(/^import (?!type )[^;]*from '\.\/(client|worker-factory)\.js'/m);
    expect(text).not.toMatch(/^export (?!type )[^;]*from '\.\/(client|worker-factory)\.js'/m);
  });
});
