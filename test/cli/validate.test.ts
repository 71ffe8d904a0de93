/** `lev validate` (docs/validate.md): its report, JSON shape and exit codes, with `lev` run in process. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lev as levInProcess } from './lev-in-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'lev-validate-'));
/** For a check that only computes, seconds of CPU on a quiet two-core machine: room for one busy with other work. */
const COMPUTE_ONLY_MS = 60_000;

function lev(...args: string[]) {
  return levInProcess(['validate', ...args], { env: { LEVIATH_CONFIG: join(scratch, 'no-config.toml') } });
}

function blueprint(name: string, toml: string): string {
  const file = join(scratch, `${name}.toml`);
  writeFileSync(file, toml);
  return file;
}

const warned = blueprint('warned', '[context.regions]\nconversation = { kind = "sliding_window", max_item = 20 }\n');
const broken = blueprint('broken', '[context.regions]\nnotes = { budget = "35" }\n');

describe('lev validate', () => {
  it('passes the examples and prints a budget table per stage', async () => {
    const r = await lev('blueprints/coder', 'blueprints/researcher');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('blueprints/coder/agent.toml: ok (0 errors, 0 warnings, 0 notes)');
    expect(r.stdout).toContain('stage implement: model anthropic:claude-sonnet-5-5, window 1000000 tokens');
    expect(r.stdout).toMatch(/region\s+kind\s+placement\s+budget\s+tokens\s+threshold/);
    expect(r.stdout).toMatch(/codebase\s+compacting\s+system\s+"20%"\s+60000\s+48000/);
    expect(r.stdout).toMatch(/todos\s+checklist\s+tail\s+"3%"\s+4000/);
    expect(r.stdout).toMatch(/conversation\s+sliding_window\s+messages\s+"30%"/);
  });

  it('prints findings as path:line:column: severity message [code] and exits 1 on an error', async () => {
    const r = await lev(broken);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /broken\.toml:2:11: error `budget` of region "notes" is "35", but it must end in "%".* \[bad-budget\]/,
    );
    expect(r.stdout).toContain('FAILED (1 error, 0 warnings, 0 notes)');
  });

  it('allows warnings unless --deny-warnings is given (docs/reference/simulator.md#scenarios row 32)', async () => {
    const ok = await lev(warned);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/warned\.toml:2:\d+: warning .*\[unknown-region-key\]/);
    expect((await lev('--deny-warnings', warned)).code).toBe(1);
  });

  it('exits 2 for a missing file, even beside a valid one', async () => {
    const missing = await lev('blueprints/coder', join(scratch, 'nope'));
    expect(missing.code).toBe(2);
    expect(missing.stdout).toContain('[blueprint-not-found]');
  });

  it('exits 2 for a --window that is not a positive integer', async () => {
    expect((await lev('--window', 'lots', 'blueprints/coder')).code).toBe(2);
  });

  it('prints the documented JSON shape', async () => {
    const r = await lev('--json', broken, 'blueprints/researcher');
    expect(r.code).toBe(1);
    interface FileJson {
      path: string;
      ok: boolean;
      diagnostics: Record<string, unknown>[];
      stages: { name: string; window: number; regions: Record<string, unknown>[] }[];
    }
    const out = JSON.parse(r.stdout) as { files: FileJson[] };
    expect(out.files).toHaveLength(2);
    const [bad, good] = out.files;
    expect(Object.keys(bad ?? {})).toEqual(['path', 'ok', 'diagnostics', 'stages']);
    expect(bad).toMatchObject({ ok: false, stages: [] });
    expect(bad?.diagnostics[0]).toEqual({
      code: 'bad-budget',
      severity: 'error',
      message: expect.stringContaining('"notes"'),
      path: 'context.regions.notes.budget',
      line: 2,
      column: 11,
    });
    expect(good).toMatchObject({ path: 'blueprints/researcher/agent.toml', ok: true, diagnostics: [] });
    const gather = good?.stages[0];
    expect(gather?.name).toBe('gather');
    expect(gather?.window).toBe(1000000);
    expect(gather?.regions[2]).toEqual({ name: 'findings', kind: 'hashmap', placement: 'tail', budget: 30000 });
  });

  it("names a script tool's own file and the position of its compile error (docs/reference/script-tools.md)", async () => {
    const dir = join(scratch, 'scripted-tools');
    mkdirSync(join(dir, 'tools'), { recursive: true });
    writeFileSync(join(dir, 'agent.toml'), '[stages.main]\navailable_tools = ["owner"]\n');
    writeFileSync(join(dir, 'tools', 'owner.rhai'), '// @tool owner\nlet who = ;\n');
    const r = await lev(dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /tools\/owner\.rhai:2:11: error The script tool `owner` does not compile: .*\[script-tool-syntax\]/,
    );
    const out = JSON.parse((await lev('--json', dir)).stdout) as { files: { path: string; diagnostics: unknown[] }[] };
    expect(out.files[0]?.path).toMatch(/agent\.toml$/);
    expect(out.files[0]?.diagnostics[0]).toMatchObject({
      code: 'script-tool-syntax',
      file: join(dir, 'tools', 'owner.rhai'),
      line: 2,
      column: 11,
    });
  });

  it('resolves every stage at the --window override', async () => {
    const r = await lev('--json', '--window', '32000', 'blueprints/coder');
    const out = JSON.parse(r.stdout) as {
      files: { stages: { window: number; regions: { name: string; budget: number; threshold?: number }[] }[] }[];
    };
    const stage = out.files[0]?.stages[0];
    expect(stage?.window).toBe(32000);
    expect(stage?.regions.find((x) => x.name === 'codebase')).toEqual({
      name: 'codebase',
      kind: 'compacting',
      placement: 'system',
      budget: 6400,
      threshold: 5120,
    });
  });

  it(
    'reports a blueprint of 130,000 regions with a coded error instead of overflowing the stack',
    async () => {
      const regions = Array.from({ length: 130_000 }, (_, i) => `r${i} = { kind = "temporary", max_tokens = 10 }`);
      const r = await lev(blueprint('many', `[stages.main]\n[stages.main.context.regions]\n${regions.join('\n')}\n`));
      expect(r.stderr).not.toContain('RangeError');
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('[blueprint-too-large]');
    },
    COMPUTE_ONLY_MS,
  );

  it('refuses a 3 MB system_prompt with a coded error that points at it', async () => {
    const prompt = 'Be thorough. '.repeat(240_000);
    const file = blueprint(
      'huge-prompt',
      `[context.regions]\nstage_instructions = { kind = "pinned", max_tokens = 1000 }\n[stages.main]\nsystem_prompt = "${prompt}"\n`,
    );
    const r = await lev(file);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /huge-prompt\.toml:4:\d+: error .*system_prompt of stage "main" alone is \d+ bytes.*\[blueprint-too-large\]/,
    );
  });
});
