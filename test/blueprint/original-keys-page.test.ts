/**
 * docs/reference/original-keys.md against the validator: for every row, a
 * blueprint that sets the key (or grants the tool) as the original uses it is
 * loaded, and the page's word must be what the load says. `works`: no error,
 * no `unsupported-feature`, and no warning that the key does nothing there;
 * `warns`: `unsupported-feature`, and no error.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { ORIGINAL_SCRIPT_TOOLS } from '../../src/blueprint/unsupported.js';
import type { Diagnostic } from '../../src/errors.js';
import { blueprintSetting, FILES, workerAgentsDir } from './original-schema.js';

const PAGE = readFileSync('docs/reference/original-keys.md', 'utf8');

/** Warnings that say a key has no effect where it was written. */
const NO_EFFECT = ['fan-out-key-unused', 'unknown-region-key', 'interaction-points-unused', 'transform-never-applies'];

const AGENTS = workerAgentsDir();

function load(text: string, tools = false) {
  const dir = mkdtempSync(join(tmpdir(), 'lev-page-'));
  writeFileSync(join(dir, 'agent.leviath'), text);
  // The original's web tools come with their scripts, as its researchers carry them.
  if (tools) cpSync('test/fixtures/leviath-rs/agents/researcher/tools', join(dir, 'tools'), { recursive: true });
  for (const [name, body] of Object.entries(FILES)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), body);
  }
  return loadBlueprint(dir, { workdir: dir, agentsDir: AGENTS });
}

function verdict(diagnostics: Diagnostic[]): string {
  const codes = diagnostics.map((d) => `${d.severity === 'error' ? 'error ' : ''}${d.code}`);
  if (diagnostics.some((d) => d.severity === 'error')) return `error (${codes.join(', ')})`;
  if (codes.includes('unsupported-feature')) return 'warns';
  const none = codes.filter((c) => NO_EFFECT.includes(c));
  return none.length > 0 ? `no effect (${none.join(', ')})` : 'works';
}

/** The rows of a section of the page: the first cell's code spans and the first word of the second cell. */
function rows(section: string): { names: string[]; status: string }[] {
  const start = PAGE.indexOf(`\n## ${section}\n`);
  const end = PAGE.indexOf('\n## ', start + 1);
  const text = PAGE.slice(start, end === -1 ? undefined : end);
  return [...text.matchAll(/^\| (.+?) \| (\w+)/gm)]
    .filter((m) => m[1] !== 'Key of the original' && m[1] !== 'Tool' && !m[1]?.startsWith('---'))
    .map((m) => ({ names: [...(m[1] ?? '').matchAll(/`([^`]+)`/g)].map((n) => n[1] as string), status: m[2] ?? '' }));
}

describe('docs/reference/original-keys.md says what the validator does', () => {
  it('for every key', () => {
    const keys = ['`[agent]`', 'Stages', 'Context and regions', 'Other top-level tables'].flatMap(rows);
    expect(keys.length).toBeGreaterThan(230);
    const wrong = keys.flatMap(({ names: [key], status }) => {
      const got = verdict(load(blueprintSetting(key as string)).diagnostics);
      return got === status ? [] : [`${key}: the page says ${status}, the validator ${got}`];
    });
    expect(wrong).toEqual([]);
  });

  it('for every tool', () => {
    const tools = rows('Tools of the original').filter((r) => !r.names.some((n) => n.includes('<name>')));
    const wrong = tools.flatMap(({ names, status }) =>
      names.map((tool) => {
        const r = load(
          `[agent]\nname = "x"\n[stages.work]\nmax_iterations = 3\nallow_blocking_tools = true\navailable_tools = ["${tool}"]\n`,
          ORIGINAL_SCRIPT_TOOLS[tool] !== undefined,
        );
        const got = verdict(r.diagnostics);
        return got === status ? '' : `${tool}: the page says ${status}, the validator ${got}`;
      }),
    );
    expect(wrong.filter(Boolean)).toEqual([]);
  });
});
