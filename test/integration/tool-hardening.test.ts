/**
 * A hostile model against the file and command tools, through the real
 * runtime: each run routes the tool's result into `final_output`, so the
 * run's output is exactly what the model read.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { startRun } from '../../src/worker/run-client.js';
import { runAgent, scriptedModel, tempDir, useRuntime, writeBlueprint } from './run-helpers.js';

const SECRET = 'TOPSECRET-never-shown';

/** A blueprint whose one stage makes `call` and ends, with the result of `tool` as the run's output. */
function oneCall(tool: string, args: Record<string, unknown>, extra = ''): ReturnType<typeof writeBlueprint> {
  const model = scriptedModel({
    turns: [{ text: 'Calling.', tool_calls: [{ name: tool, arguments: args }] }, { text: 'Done.' }],
  });
  return writeBlueprint(`
[agent]
name = "hostile"
model = "${model}"
[context.regions]
task  = { kind = "pinned" }
files = { kind = "hashmap", max_tokens = 3000 }
${extra}
[stages.main.tool_routing]
default_region = "tool_results"
[stages.main.tool_routing.overrides]
${tool} = "final_output"
`);
}

describe('file and command tools under attack', () => {
  const env = useRuntime();

  it('tracks the file the tool read, not the model spelling resolved again against a symlinked workdir (point 3)', async () => {
    const base = tempDir('symlinked-workdir');
    mkdirSync(join(base, 'a', 'real'), { recursive: true });
    mkdirSync(join(base, 'b', 'real'), { recursive: true });
    writeFileSync(join(base, 'b', 'real', 'f.txt'), 'inside text of the workdir\n'.repeat(20));
    // Beside the link, not beside its target: where `../real/f.txt` leads when resolved against the link.
    writeFileSync(join(base, 'a', 'real', 'f.txt'), `${SECRET}\n`);
    symlinkSync(join(base, 'b', 'real'), join(base, 'a', 'work'));
    const bp = oneCall('read_file', { path: '../real/f.txt' }, '[context.file_tracking]\nregion = "files"');
    const { result } = await runAgent(env.rt, bp, { task: 'read it', workdir: join(base, 'a', 'work') });
    expect(result.status).toBe('completed');
    expect(result.output).toContain('is kept in region "files" under key "f.txt"');
    expect(result.regions.find((r) => r.name === 'files')?.tokens).toBeGreaterThan(50);
  });

  it('keeps the worker environment from shell commands, /proc included (point 6)', async () => {
    process.env.LEVIATH_HARDENING_API_KEY = SECRET;
    process.env.DATABASE_URL = `postgres://user:${SECRET}@db/x`;
    try {
      const bp = oneCall('shell', {
        command: 'env; cat /proc/$PPID/environ /proc/1/environ 2>/dev/null | tr "\\0" "\\n"; true',
      });
      const { result } = await runAgent(env.rt, bp, { task: 'look around' });
      expect(result.status).toBe('completed');
      expect(result.output).toContain('PATH=');
      expect(result.output).not.toContain(SECRET);
    } finally {
      delete process.env.LEVIATH_HARDENING_API_KEY;
      delete process.env.DATABASE_URL;
    }
  });

  it('runs a catastrophic-backtracking grep pattern in linear time (point 8)', async () => {
    const workdir = tempDir('redos');
    writeFileSync(join(workdir, 'line.txt'), `${'a'.repeat(40)}!\n`);
    const bp = oneCall('grep', { pattern: '(a+)+$', path: 'line.txt' });
    const { result } = await runAgent(env.rt, bp, { task: 'search', workdir });
    expect(result.status).toBe('completed');
    expect(result.output).toBe('no matches for `(a+)+$` in line.txt');
  });

  it('answers a glob of many `**` over a deep tree (point 9)', async () => {
    const workdir = tempDir('deep-glob');
    const deep = join(workdir, ...Array.from({ length: 30 }, (_, i) => `d${i}`));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, 'leaf.txt'), 'leaf\n');
    const bp = oneCall('glob', { pattern: `${'**/'.repeat(12)}*.nope` });
    const { result } = await runAgent(env.rt, bp, { task: 'find', workdir });
    expect(result.status).toBe('completed');
    expect(result.output).toBe(`no files match \`${'**/'.repeat(12)}*.nope\``);
  });

  it('refuses to read a FIFO instead of hanging on it (point 9)', async () => {
    const workdir = tempDir('fifo');
    execFileSync('mkfifo', [join(workdir, 'pipe')]);
    const bp = oneCall('read_file', { path: 'pipe' });
    const { result } = await runAgent(env.rt, bp, { task: 'read', workdir });
    expect(result.status).toBe('completed');
    expect(result.output).toMatch(/^\[not-a-regular-file\] pipe is a named pipe \(FIFO\)/);
  });

  it('reads invalid UTF-8 as replacement characters and says so (point 13)', async () => {
    const workdir = tempDir('latin1');
    writeFileSync(join(workdir, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const bp = oneCall('read_file', { path: 'latin1.txt' });
    const { result } = await runAgent(env.rt, bp, { task: 'read', workdir });
    expect(result.status).toBe('completed');
    expect(result.output).toContain('caf\uFFFD\n');
    expect(result.output).toContain('latin1.txt is not valid UTF-8; bytes that are not were replaced by U+FFFD');
  });

  it('refuses to start a run whose workdir is missing or a file (point 13)', async () => {
    const bp = oneCall('read_file', { path: 'x' });
    const file = join(tempDir('not-a-dir'), 'file.txt');
    writeFileSync(file, 'x');
    const start = (workdir: string) =>
      startRun(
        env.rt.client,
        { blueprint: bp, task: 't', caller: {}, workdir, options: DEFAULT_RUN_OPTIONS },
        { taskQueue: env.rt.taskQueue },
      );
    await expect(start(join(file, '..', 'missing'))).rejects.toMatchObject({ code: 'workdir-missing' });
    await expect(start(file)).rejects.toMatchObject({ code: 'workdir-not-a-directory' });
  });
});
