/** docs/simulate.md's worked example is exactly what the command prints. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatReport, simulate } from '../../src/cli/simulate/index.js';

const root = join(import.meta.dirname, '..', '..');
const example = join(root, 'test', 'fixtures', 'simulate', 'docs-example');
const doc = readFileSync(join(root, 'docs', 'simulate.md'), 'utf8');

/** The first fenced block after `marker`. */
function blockAfter(marker: string): string {
  const at = doc.indexOf(marker);
  expect(at, `docs/simulate.md lacks "${marker}"`).toBeGreaterThanOrEqual(0);
  const match = /```[a-z]*\n([\s\S]*?)\n```/.exec(doc.slice(at));
  return match?.[1] ?? '';
}

describe('docs/simulate.md', () => {
  const events = readFileSync(join(example, 'events.jsonl'), 'utf8');
  const result = simulate(example, events, { window: 20_000 });

  it('shows the fixture blueprint and events', () => {
    expect(blockAfter('`agent.toml`:')).toBe(readFileSync(join(example, 'agent.toml'), 'utf8').trimEnd());
    expect(blockAfter('`events.jsonl`')).toBe(events.trimEnd());
  });

  it('shows the readable report and the JSON the command prints', () => {
    expect(result.exitCode).toBe(0);
    if (!result.json) throw new Error(result.stderr);
    expect(blockAfter('--window 20000` prints:')).toBe(formatReport(result.json).trimEnd());
    expect(blockAfter('The same run with `--json`:')).toBe(JSON.stringify(result.json, null, 2));
  });
});
