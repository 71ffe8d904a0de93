import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LevError } from '../../src/errors.js';
import { acceptedInputs, acceptsTask, preflightSeedPaths, resolveSeed, seedsFromInput } from '../../src/seeds/index.js';
import { compileReadPaths } from '../../src/tools/read-paths.js';
import { makeSandbox, type Sandbox, SECRET } from '../tools/fixture.js';
import { blueprint, region, seedInputs } from './fixture.js';

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

async function fatal(promise: Promise<unknown>): Promise<LevError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(LevError);
    return err as LevError;
  }
  throw new Error('expected the seed to be fatal');
}

describe('caller and literal forms', () => {
  it('task_input, the implicit task seed, input, caller and literal', async () => {
    const inputs = seedInputs(box.work, { task: 'fix the bug', caller: { notes: 'n1', brief: 'b1' } });
    expect((await resolveSeed(region('t', { form: 'task_input' }), inputs)).texts).toEqual([{ text: 'fix the bug' }]);
    expect((await resolveSeed(region('task'), inputs)).texts).toEqual([{ text: 'fix the bug' }]);
    expect((await resolveSeed(region('notes', { form: 'input' }), inputs)).texts).toEqual([{ text: 'n1' }]);
    expect((await resolveSeed(region('x', { form: 'caller', key: 'brief' }), inputs)).texts).toEqual([{ text: 'b1' }]);
    expect((await resolveSeed(region('r', { form: 'literal', text: 'verbatim  ' }), inputs)).texts).toEqual([
      { text: 'verbatim  ' },
    ]);
    expect((await resolveSeed(region('plain'), inputs)).texts).toEqual([]);
  });

  it('a missing value leaves an optional region empty and refuses a required one', async () => {
    const inputs = seedInputs(box.work);
    expect((await resolveSeed(region('notes', { form: 'input' }), inputs)).texts).toEqual([]);
    const err = await fatal(
      resolveSeed(region('notes', { form: 'input' }, { required: true, requiredMessage: 'Give me notes.' }), inputs),
    );
    expect(err.code).toBe('required-input-missing');
    expect(err.message).toContain('Give me notes.');
  });
});

describe('files and glob', () => {
  it('reads files keyed by workdir-relative path, skipping unreadable ones with a warning', async () => {
    const out = await resolveSeed(
      region('code', { form: 'files', paths: ['a.txt', './sub/b.txt', 'missing.txt'] }),
      seedInputs(box.work),
    );
    expect(out.texts).toEqual([
      { key: 'a.txt', text: 'alpha\nbeta\ngamma\n' },
      { key: 'sub/b.txt', text: 'inside b\n' },
    ]);
    expect(out.warnings).toEqual([expect.objectContaining({ code: 'seed-file-unreadable', severity: 'warning' })]);
    expect(out.warnings[0]?.message).toContain('missing.txt');
  });

  it('an unreadable file is fatal for a required region', async () => {
    const err = await fatal(
      resolveSeed(region('code', { form: 'files', paths: ['missing.txt'] }, { required: true }), seedInputs(box.work)),
    );
    expect(err.code).toBe('seed-file-unreadable');
  });

  it('scenario 36: a path outside is refused at spawn, naming the path and [read_paths]', () => {
    writeFileSync(path.join(box.root, 'secret.txt'), SECRET);
    const bp = blueprint([region('ctx', { form: 'files', paths: ['../secret.txt'] })]);
    const errors = preflightSeedPaths(bp, seedInputs(box.work));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'seed-path-refused', severity: 'error', path: 'context.regions.ctx.seed' });
    expect(errors[0]?.message).toContain('../secret.txt');
    expect(errors[0]?.message).toContain('[read_paths]');
    expect(errors[0]?.message).toContain(box.work);
  });

  it('refuses before reading anything, even earlier paths in the list', async () => {
    // Reading a FIFO blocks until a writer comes, so any early read would hang the test.
    execFileSync('mkfifo', [path.join(box.work, 'fifo')]);
    const err = await fatal(
      resolveSeed(region('ctx', { form: 'files', paths: ['fifo', 'link-out'] }), seedInputs(box.work)),
    );
    expect(err.code).toBe('seed-path-refused');
    expect(err.message).toContain('link-out');
    expect(err.message).not.toContain(SECRET);
  });

  it('a granted read path may be seeded, keyed by its real path', async () => {
    const { policy } = compileReadPaths([box.secret], { agentAllow: [box.secret] }, box.work, '/nonexistent');
    const inputs = seedInputs(box.work, { readPolicy: policy });
    const bp = blueprint([region('ctx', { form: 'files', paths: ['../secret/secret.txt'] })]);
    expect(preflightSeedPaths(bp, inputs)).toEqual([]);
    const out = await resolveSeed(region('ctx', { form: 'files', paths: ['../secret/secret.txt'] }), inputs);
    expect(out.texts).toEqual([{ key: path.join(box.secret, 'secret.txt'), text: `${SECRET}\n` }]);
  });

  it('glob seeds every match in byte-wise path order', async () => {
    mkdirSync(path.join(box.work, 'docs', 'b'), { recursive: true });
    for (const f of ['docs/b.md', 'docs/B.md', 'docs/a.md', 'docs/b/z.md', 'docs/c.txt'])
      writeFileSync(path.join(box.work, f), f);
    const out = await resolveSeed(region('docs', { form: 'glob', pattern: 'docs/**/*.md' }), seedInputs(box.work));
    expect(out.texts.map((t) => t.key)).toEqual(['docs/B.md', 'docs/a.md', 'docs/b.md', 'docs/b/z.md']);
    expect(out.texts[0]?.text).toBe('docs/B.md');
  });

  it('a glob without matches warns, and is fatal for a required region', async () => {
    const seed = { form: 'glob', pattern: '*.none' } as const;
    expect((await resolveSeed(region('d', seed), seedInputs(box.work))).warnings[0]?.code).toBe('seed-glob-empty');
    expect((await fatal(resolveSeed(region('d', seed, { required: true }), seedInputs(box.work)))).code).toBe(
      'seed-glob-empty',
    );
  });

  it('a glob reaching outside is refused at spawn; a match linking outside is refused before any read', async () => {
    for (const pattern of ['../secret/*', '*/../../secret/*', `${box.secret}/**`, '~/*']) {
      const outside = blueprint([region('d', { form: 'glob', pattern })]);
      expect(preflightSeedPaths(outside, seedInputs(box.work, { home: box.secret }))[0]?.code).toBe(
        'seed-path-refused',
      );
    }
    symlinkSync(path.join(box.secret, 'secret.txt'), path.join(box.work, 'sub', 'leak.txt'));
    const err = await fatal(resolveSeed(region('d', { form: 'glob', pattern: 'sub/*.txt' }), seedInputs(box.work)));
    expect(err.code).toBe('seed-path-refused');
    expect(err.message).toContain('sub/leak.txt');
    expect(err.message).not.toContain(SECRET);
  });
});

describe('rhai', () => {
  it('runs a workdir script with task and workdir in scope', async () => {
    writeFileSync(path.join(box.work, 'seed.rhai'), '"task is " + task + " in " + workdir');
    const out = await resolveSeed(
      region('r', { form: 'rhai', path: 'seed.rhai' }),
      seedInputs(box.work, { task: 'T' }),
    );
    expect(out.texts).toHaveLength(1);
    expect(out.texts[0]?.key).toBe('seed.rhai');
    expect(out.texts[0]?.text).toMatch(/^task is T in \//);
  });

  it('a script outside the workdir is refused at spawn and at resolution', async () => {
    writeFileSync(path.join(box.secret, 's.rhai'), '"x"');
    const r = region('r', { form: 'rhai', path: '../secret/s.rhai' });
    expect(preflightSeedPaths(blueprint([r]), seedInputs(box.work))[0]?.code).toBe('seed-path-refused');
    expect((await fatal(resolveSeed(r, seedInputs(box.work)))).code).toBe('seed-path-refused');
  });

  it('read, compile and runtime errors are always fatal; an empty result only when required', async () => {
    const inputs = seedInputs(box.work);
    expect((await fatal(resolveSeed(region('r', { form: 'rhai', path: 'none.rhai' }), inputs))).code).toBe(
      'seed-rhai-failed',
    );
    writeFileSync(path.join(box.work, 'bad.rhai'), 'let = ;');
    expect((await fatal(resolveSeed(region('r', { form: 'rhai', path: 'bad.rhai' }), inputs))).code).toBe(
      'seed-rhai-failed',
    );
    writeFileSync(path.join(box.work, 'boom.rhai'), 'no_such_variable + 1');
    const boom = await fatal(resolveSeed(region('r', { form: 'rhai', path: 'boom.rhai' }), inputs));
    expect(boom.message).toContain('boom.rhai');
    writeFileSync(path.join(box.work, 'empty.rhai'), '""');
    expect((await resolveSeed(region('r', { form: 'rhai', path: 'empty.rhai' }), inputs)).warnings[0]?.code).toBe(
      'seed-empty',
    );
    expect(
      (await fatal(resolveSeed(region('r', { form: 'rhai', path: 'empty.rhai' }, { required: true }), inputs))).code,
    ).toBe('seed-empty');
  });
});

describe('command seeds (docs/reference/seeds.md#command-seeds)', () => {
  const cmd = (command: string, extra = {}) => region('out', { form: 'command', command }, extra);

  it('runs a pre-approved command in the workdir, keyed by the command', async () => {
    const out = await resolveSeed(cmd('ls sub && cat a.txt | head -n 1'), seedInputs(box.work));
    expect(out.texts).toEqual([{ key: 'ls sub && cat a.txt | head -n 1', text: 'b.txt\nalpha\n' }]);
  });

  it('is skipped with a warning when disabled, and fatal when required', async () => {
    const off = await resolveSeed(cmd('ls'), seedInputs(box.work, { noSeedCommands: true }));
    expect(off).toMatchObject({ texts: [], warnings: [expect.objectContaining({ code: 'seed-command-disabled' })] });
    expect(off.warnings[0]?.message).toContain('--no-seed-commands');
    const config = await resolveSeed(cmd('ls'), seedInputs(box.work, { allowSeedCommands: false }));
    expect(config.warnings[0]?.message).toContain('allow_seed_commands');
    expect(
      (await fatal(resolveSeed(cmd('ls', { required: true }), seedInputs(box.work, { noSeedCommands: true })))).code,
    ).toBe('seed-command-disabled');
  });

  it('refuses a command that is not pre-approved, without running it', async () => {
    const out = await resolveSeed(cmd('touch made.txt'), seedInputs(box.work));
    expect(out.warnings[0]).toMatchObject({ code: 'seed-command-not-approved' });
    expect(out.warnings[0]?.message).toContain('touch');
    expect(out.warnings[0]?.message).toContain('[safe_commands] shell');
    expect(existsSync(path.join(box.work, 'made.txt'))).toBe(false);
    expect((await fatal(resolveSeed(cmd('ls > list.txt', { required: true }), seedInputs(box.work)))).code).toBe(
      'seed-command-not-approved',
    );
    expect(existsSync(path.join(box.work, 'list.txt'))).toBe(false);
  });

  it('runs in the sandbox: no worker secrets, no access outside the workdir', async () => {
    vi.stubEnv('LEVIATH_SEED_TEST_TOKEN', 'seed-secret-never-shown');
    try {
      const out = await resolveSeed(
        cmd(`cat /proc/1/environ; cat /proc/$PPID/environ; cat ${box.secret}/secret.txt; cat a.txt`),
        seedInputs(box.work),
      );
      expect(out.texts[0]?.text).toContain('alpha');
      expect(out.texts[0]?.text).not.toContain('seed-secret-never-shown');
      expect(out.texts[0]?.text).not.toContain(SECRET);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('[safe_commands] shell extends the safe list', async () => {
    const out = await resolveSeed(
      cmd('touch made.txt && ls made.txt'),
      seedInputs(box.work, { safeCommands: ['touch'] }),
    );
    expect(out.texts[0]?.text).toBe('made.txt\n');
  });

  it('a non-zero exit or a timeout is fatal; empty output warns', async () => {
    const failed = await fatal(resolveSeed(cmd('grep nothing-here a.txt'), seedInputs(box.work)));
    expect(failed.code).toBe('seed-command-failed');
    expect(failed.message).toContain('exited with code 1');
    const slow = await fatal(
      resolveSeed(cmd('sleep 10'), seedInputs(box.work, { safeCommands: ['sleep'], shellTimeoutSecs: 1 })),
    );
    expect(slow.message).toContain('script_shell_timeout_secs');
    writeFileSync(path.join(box.work, 'empty.txt'), '');
    expect((await resolveSeed(cmd('cat empty.txt'), seedInputs(box.work))).warnings[0]?.code).toBe(
      'seed-command-empty',
    );
  });

  it('caps the output at 900 KB with a marker', async () => {
    writeFileSync(path.join(box.work, 'big.txt'), 'z'.repeat(1_000_000));
    const out = await resolveSeed(cmd('cat big.txt'), seedInputs(box.work));
    expect(out.texts[0]?.text.length).toBeLessThan(1_000_000);
    expect(out.texts[0]?.text).toContain('[output truncated');
  });
});

describe('tool seeds', () => {
  it('one entry per call, keyed name, name#2 …, trailing whitespace trimmed', async () => {
    const out = await resolveSeed(
      region('t', {
        form: 'tools',
        calls: [
          { name: 'read_file', args: { path: 'a.txt' } },
          { name: 'list_dir', args: { path: 'sub' } },
          { name: 'read_file', args: { path: 'sub/b.txt' } },
        ],
      }),
      seedInputs(box.work),
    );
    expect(out.texts).toEqual([
      { key: 'read_file', text: 'alpha\nbeta\ngamma' },
      { key: 'list_dir', text: 'sub: 1 entry\nb.txt  (9 bytes)' },
      { key: 'read_file#2', text: 'inside b' },
    ]);
  });

  it('a failing call is skipped with a warning, or fatal when required', async () => {
    const calls = [
      { name: 'read_file', args: { path: '../secret/secret.txt' } },
      { name: 'glob', args: { pattern: '*.txt' } },
    ];
    const out = await resolveSeed(region('t', { form: 'tools', calls }), seedInputs(box.work));
    expect(out.texts).toEqual([{ key: 'glob', text: 'a.txt' }]);
    expect(out.warnings[0]?.message).toContain('path-outside-workdir');
    expect(
      (await fatal(resolveSeed(region('t', { form: 'tools', calls }, { required: true }), seedInputs(box.work)))).code,
    ).toBe('seed-tool-failed');
  });

  it("names a script tool of the blueprint, whose shell answers to the command seeds' switches", async () => {
    const source =
      '// @tool owners\nlet a = read_file("a.txt").split("\\n")[0];\nlet b = try { shell("echo ran") } catch (e) { "no shell" };\na + " " + b.trim()';
    const owners = { name: 'owners', description: 'd', parameters: { type: 'object' }, path: 'tools/o.rhai', source };
    const scripts = { tools: [owners], permissions: {}, shellTimeoutSecs: 60 };
    const seed = region('t', { form: 'tools', calls: [{ name: 'owners', args: {} }] });
    expect((await resolveSeed(seed, seedInputs(box.work, { scripts }))).texts).toEqual([
      { key: 'owners', text: 'alpha ran' },
    ]);
    expect((await resolveSeed(seed, seedInputs(box.work, { scripts, noSeedCommands: true }))).texts).toEqual([
      { key: 'owners', text: 'alpha no shell' },
    ]);
  });

  it('calls obey tool permissions and ask counts as refused', async () => {
    const inputs = seedInputs(box.work, { permissions: { tools: { shell: 'ask', write_file: 'deny' } } });
    const calls = [
      { name: 'bash', args: { command: 'touch x.txt' } },
      { name: 'write_file', args: { path: 'y.txt', content: 'y' } },
      { name: 'shell', args: { command: 'echo safe' } },
    ];
    const out = await resolveSeed(region('t', { form: 'tools', calls }), inputs);
    expect(out.warnings.map((w) => w.message.match(/\[(permission-[a-z-]+)\]/)?.[1])).toEqual([
      'permission-ask-unattended',
      'permission-denied',
    ]);
    expect(out.texts).toEqual([{ key: 'shell#2', text: 'safe\n[exit code 0]' }]);
    expect(existsSync(path.join(box.work, 'x.txt'))).toBe(false);
    expect(existsSync(path.join(box.work, 'y.txt'))).toBe(false);
  });
  it('a shell tool seed obeys --no-seed-commands and allow_seed_commands = false, like a command seed', async () => {
    const calls = [
      { name: 'shell', args: { command: 'echo ran > ran.txt; echo ran' } },
      { name: 'bash', args: { command: 'echo ran > ran2.txt; echo ran' } },
      { name: 'list_dir', args: { path: 'sub' } },
    ];
    const grant = { permissions: { tools: { shell: 'allow' as const } } };
    for (const extra of [{ noSeedCommands: true }, { allowSeedCommands: false }]) {
      const out = await resolveSeed(
        region('t', { form: 'tools', calls }),
        seedInputs(box.work, { ...grant, ...extra }),
      );
      expect(out.texts.map((t) => t.key)).toEqual(['list_dir']);
      expect(out.warnings.map((w) => w.code)).toEqual(['seed-command-disabled', 'seed-command-disabled']);
      const error = await fatal(
        resolveSeed(
          region('t', { form: 'tools', calls }, { required: true }),
          seedInputs(box.work, { ...grant, ...extra }),
        ),
      );
      expect(error.code).toBe('seed-command-disabled');
    }
    expect(existsSync(path.join(box.work, 'ran.txt'))).toBe(false);
    expect(existsSync(path.join(box.work, 'ran2.txt'))).toBe(false);
    // With commands allowed and the permission granted, the same seed runs.
    const allowed = await resolveSeed(
      region('t', { form: 'tools', calls: calls.slice(0, 1) }),
      seedInputs(box.work, grant),
    );
    expect(allowed.texts[0]?.text).toContain('ran');
  });
});

describe('task acceptance (docs/reference/seeds.md#forms, scenario 37)', () => {
  it('(b) a blueprint that reads no task refuses one and lists its inputs', () => {
    const bp = blueprint([region('rules', { form: 'literal', text: 'x' }), region('brief', { form: 'input' })]);
    expect(acceptsTask(bp)).toBe(false);
    expect(acceptedInputs(bp)).toEqual(['brief']);
    const errors = preflightSeedPaths(bp, seedInputs(box.work, { task: 'do it' }));
    expect(errors.map((e) => e.code)).toEqual(['task-not-accepted']);
    expect(errors[0]?.message).toContain('`brief`');
    expect(preflightSeedPaths(bp, seedInputs(box.work, { task: '   ' }))).toEqual([]);
  });

  it('(c) a region named task accepts it through the implicit seed', () => {
    const bp = blueprint([region('rules', { form: 'literal', text: 'x' }), region('task')]);
    expect(acceptsTask(bp)).toBe(true);
    expect(acceptedInputs(bp)).toEqual(['task']);
    expect(preflightSeedPaths(bp, seedInputs(box.work, { task: 'do it' }))).toEqual([]);
  });

  it('a required caller-seeded region with a blank value refuses the spawn', () => {
    const bp = blueprint([
      region('task', undefined, { required: true }),
      region(
        'spec',
        { form: 'caller', key: 'spec_text' },
        { required: true, requiredMessage: 'Pass the spec with --input spec_text=...' },
      ),
    ]);
    const errors = preflightSeedPaths(bp, seedInputs(box.work, { caller: { spec_text: '' } }));
    expect(errors.map((e) => e.code)).toEqual(['required-input-missing', 'required-input-missing']);
    expect(errors[0]?.message).toContain('task');
    expect(errors[1]?.message).toBe('Pass the spec with --input spec_text=...');
  });
});

describe('seeds from the run’s input (docs/reference/sub-agents.md#one-workflow-per-worker)', () => {
  it('are the task, inputs, caller values and literals; files, globs, scripts, commands and tools read the host', () => {
    const fromInput = [
      region('task'),
      region('brief', { form: 'input' }),
      region('spec', { form: 'caller', key: 'spec_text' }),
      region('rules', { form: 'literal', text: 'x' }),
      region('scratch'),
    ];
    expect(seedsFromInput(fromInput)).toBe(true);
    for (const host of [
      region('docs', { form: 'files', paths: ['README.md'] }),
      region('src', { form: 'glob', pattern: 'src/**' }),
      region('made', { form: 'rhai', path: 'seed.rhai' }),
      region('log', { form: 'command', command: 'git log -1' }),
      region('time', { form: 'tools', calls: [{ name: 'current_time', args: {} }] }),
    ])
      expect(seedsFromInput([...fromInput, host])).toBe(false);
  });
});
