/**
 * `lev run --task @FILE`, `--output-schema`, `--allow` and `--yolo`
 * (docs/reference/commands.md#lev-run-flags).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { parseOutputSchema, valueOrFile, withApprovals } from '../../src/cli/launch-flags.js';
import { isLevError } from '../../src/errors.js';
import { withLaunchOutput } from '../../src/outputs/spec.js';
import { mergedPermissions } from '../../src/tools/permissions.js';
import { loadToml } from '../blueprint/helpers.js';
import { lev } from './lev-in-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'lev-flags-'));

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (err) {
    if (isLevError(err)) return err.code;
    throw err;
  }
  return undefined;
}

describe('@FILE values', () => {
  it('read the file; anything else is the text itself', () => {
    writeFileSync(join(scratch, 'brief.md'), 'Fix the login bug.\n');
    expect(valueOrFile(`@${join(scratch, 'brief.md')}`, '--task')).toBe('Fix the login bug.\n');
    expect(valueOrFile('plain words', '--task')).toBe('plain words');
    expect(codeOf(() => valueOrFile('@/no/such/file.md', '--task'))).toBe('input-file-unreadable');
  });
});

describe('--output-schema', () => {
  it('takes JSON or @file, and refuses what is not a schema object', () => {
    writeFileSync(join(scratch, 'schema.json'), '{"type":"object","required":["summary"]}');
    expect(parseOutputSchema(`@${join(scratch, 'schema.json')}`)).toEqual({ type: 'object', required: ['summary'] });
    expect(parseOutputSchema('{"type":"array"}')).toEqual({ type: 'array' });
    expect(codeOf(() => parseOutputSchema('{type: object}'))).toBe('output-schema-invalid');
    expect(codeOf(() => parseOutputSchema('[1]'))).toBe('output-schema-invalid');
    expect(codeOf(() => parseOutputSchema('{"type":"no-such-type"}'))).toBe('output-schema-invalid');
  });

  it('becomes the schema the answering stage checks', () => {
    const bp = loadToml('[stages.answer]\nmode = "output"\n').blueprint!;
    const out = withLaunchOutput(bp, { format: 'json', schema: { type: 'object' } });
    expect(out.stages[0]?.output).toMatchObject({ format: 'json', schema: { type: 'object' } });
  });
});

describe('--allow and --yolo', () => {
  const bp = loadToml(
    '[tool_permissions]\nshell = "ask"\nwrite_file = "deny"\nedit_file = "ask"\n\n[stages.work]\ntool_permissions = { default = "ask", read_file = "allow" }\n',
  ).blueprint!;

  it('--allow turns that tool’s ask into allow, at every level, and leaves the rest', () => {
    const allowed = withApprovals(bp, { allow: ['bash'] });
    const merged = mergedPermissions(allowed, 'work');
    expect(merged.tools.shell).toBe('allow');
    expect(merged.tools.edit_file).toBe('ask');
    expect(merged.tools.write_file).toBe('deny');
    expect(merged.default).toBe('ask');
  });

  it('--yolo turns every ask into allow and never lifts a deny', () => {
    const merged = mergedPermissions(withApprovals(bp, { yolo: true }), 'work');
    expect(merged.tools).toMatchObject({ shell: 'allow', edit_file: 'allow', write_file: 'deny', read_file: 'allow' });
    expect(merged.default).toBe('allow');
    expect(withApprovals(bp, { allow: [] })).toBe(bp);
  });

  it('reaches the blueprints the run’s workers run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-yolo-'));
    const worker = join(dir, 'helper');
    const boss = join(dir, 'boss');
    for (const d of [worker, boss]) mkdirSync(d);
    writeFileSync(join(worker, 'agent.toml'), '[tool_permissions]\nshell = "ask"\n');
    writeFileSync(join(boss, 'agent.toml'), '[stages.split]\nmode = "fan_out"\nworker_agent = "helper"\n');
    const loaded = loadBlueprint(boss, { workdir: dir }).blueprint!;
    const yolo = withApprovals(loaded, { yolo: true });
    expect(Object.values(yolo.agents ?? {}).map((a) => a.toolPermissions.tools.shell)).toEqual(['allow']);
  });
});

describe('lev run', () => {
  it('refuses an unreadable --task @FILE and --yolo with --attended before it starts anything', async () => {
    const run = (...args: string[]) => lev(['run', 'blueprints/demo', ...args]);
    const missing = await run('--task', '@/no/such/brief.md');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/error \[input-file-unreadable\] --task @\/no\/such\/brief\.md names a file/);
    const both = await run('--yolo', '--attended');
    expect(both.stderr).toMatch(/error \[bad-input\] --yolo runs without a person/);
  });
});
