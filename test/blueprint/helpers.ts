import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type LoadOptions, type LoadResult, loadBlueprint } from '../../src/blueprint/load.js';

/** Writes `toml` as agent.toml (plus `files`) into a fresh directory and loads it. */
export function loadToml(toml: string, files: Record<string, string> = {}, opts: LoadOptions = {}): LoadResult {
  const dir = mkdtempSync(join(tmpdir(), 'lev-bp-'));
  writeFileSync(join(dir, 'agent.toml'), toml);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return loadBlueprint(dir, { workdir: dir, ...opts });
}

export function codesOf(result: LoadResult): string[] {
  return result.diagnostics.map((d) => d.code);
}

export function errorsOf(result: LoadResult): string[] {
  return result.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code}: ${d.message}`);
}
