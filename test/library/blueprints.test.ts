/** Blueprints for a program (docs/library.md#blueprints): `lev validate`'s findings, and `lev run`'s loading with coded refusals. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LevError } from '../../src/errors.js';
import { loadBlueprint, validateBlueprint } from '../../src/library/blueprints.js';

const DEMO = join(import.meta.dirname, '..', '..', 'blueprints', 'demo');

function blueprintDir(toml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'lev-library-bp-'));
  writeFileSync(join(dir, 'agent.toml'), toml);
  return dir;
}

/** An environment with a user config of its own, so the developer's never counts. */
function envWith(config = ''): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'lev-library-home-'));
  writeFileSync(join(dir, 'config.toml'), config);
  return { ...process.env, LEVIATH_CONFIG: join(dir, 'config.toml'), LEVIATH_HOME: dir };
}

const BROKEN = '[agent]\nname = "broken"\n[stages.main]\nmodel = "scripted:x"\nmax_iterations = "many"\n';

async function rejection(work: Promise<unknown>): Promise<LevError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof LevError)) throw new Error(`expected a LevError, got ${String(err)}`);
  return err;
}

describe('validateBlueprint', () => {
  it("passes the demo and resolves its stages' budgets", () => {
    const report = validateBlueprint(DEMO, { env: envWith() });
    expect(report).toMatchObject({ ok: true, file: join(DEMO, 'agent.toml') });
    expect(report.blueprint?.agent.name).toBe('demo');
    expect(report.stages.map((s) => s.name)).toEqual(['investigate', 'report']);
  });

  it('returns every finding of a bad blueprint with its code, never throwing', () => {
    const report = validateBlueprint(blueprintDir(BROKEN), { env: envWith() });
    expect(report.ok).toBe(false);
    expect(report.blueprint).toBeUndefined();
    expect(report.diagnostics.some((d) => d.severity === 'error' && /^[a-z-]+$/.test(d.code))).toBe(true);
  });

  it("counts the user config's errors as the blueprint's", () => {
    const report = validateBlueprint(DEMO, { env: envWith('[runtime]\nno_such_key = 1\n') });
    expect(report.ok).toBe(false);
    expect(report.diagnostics[0]?.severity).toBe('error');
  });
});

describe('loadBlueprint', () => {
  it('loads the demo', async () => {
    expect((await loadBlueprint(DEMO, { env: envWith() })).agent.name).toBe('demo');
  });

  it('refuses a bad blueprint with blueprint-invalid, its errors on the error', async () => {
    const err = await rejection(loadBlueprint(blueprintDir(BROKEN), { env: envWith() }));
    expect(err.code).toBe('blueprint-invalid');
    expect(err.diagnostics.length).toBeGreaterThan(0);
    expect(err.diagnostics.every((d) => d.severity === 'error' && d.file?.endsWith('agent.toml'))).toBe(true);
  });

  it('refuses a bad user config with config-invalid', async () => {
    const err = await rejection(loadBlueprint(DEMO, { env: envWith('[runtime]\nno_such_key = 1\n') }));
    expect(err.code).toBe('config-invalid');
    expect(err.diagnostics.length).toBeGreaterThan(0);
  });

  it('refuses a reference nothing was pushed under with blueprint-ref-unknown', async () => {
    expect((await rejection(loadBlueprint('no-such-agent@1', { env: envWith() }))).code).toBe('blueprint-ref-unknown');
  });
});
