/**
 * Runtime codes that no behaviour test of their own module asserts: each
 * case here makes the runtime produce the code the way a user or a model
 * would meet it.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ActivityFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import { startDevServer } from '../src/devserver/dev-server.js';
import { freePort } from '../src/devserver/net.js';
import { isRuntimeCode } from '../src/error-codes.js';
import { isLevError } from '../src/errors.js';
import { MAX_ANSWER_BYTES, submitOutput } from '../src/outputs/submit.js';
import { classifyFailure, type FailureFacts } from '../src/providers/classify.js';
import { PROVIDER_ERROR_KINDS } from '../src/providers/index.js';
import { failureCause } from '../src/runtime/failures.js';
import { resolveSeed } from '../src/seeds/index.js';
import { SEED_FILE_MAX_BYTES } from '../src/seeds/resolve-seeds.js';
import { dispatchTool } from '../src/tools/dispatch.js';
import { NO_READ_PATHS } from '../src/tools/read-paths.js';
import { loadToml } from './blueprint/helpers.js';
import { lev } from './cli/lev-in-process.js';
import { region, seedInputs } from './seeds/fixture.js';
import { makeSandbox, SECRET } from './tools/fixture.js';

const ROOT = resolve(import.meta.dirname, '..');
const box = makeSandbox();
const scratch = mkdtempSync(join(tmpdir(), 'lev-codes-'));
afterAll(() => {
  box.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

async function levErrorCode(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (err) {
    if (isLevError(err)) return err.code;
    throw err;
  }
  throw new Error('expected a coded error');
}

describe('tool codes', () => {
  it.each([
    ['path-invalid', 'read_file', { path: 'a.txt\0b' }],
    ['path-too-long', 'read_file', { path: 'x'.repeat(300) }],
    ['path-symlink-loop', 'read_file', { path: 'loop1' }],
  ])('%s', async (code, tool, args) => {
    const out = await dispatchTool(tool, args, box.ctx());
    expect(out.code).toBe(code);
    expect(out.content.startsWith(`[${code}] `)).toBe(true);
  });

  it('binary-file', async () => {
    writeFileSync(join(box.work, 'blob.bin'), Buffer.from([0, 1, 2, 0, 255, 0]));
    expect((await dispatchTool('read_file', { path: 'blob.bin' }, box.ctx())).code).toBe('binary-file');
  });

  it('file-not-utf8', async () => {
    const latin1 = Buffer.from('caf\xe9 au lait\n', 'latin1');
    writeFileSync(join(box.work, 'menu.txt'), latin1);
    const out = await dispatchTool(
      'edit_file',
      { path: 'menu.txt', old_string: 'lait', new_string: 'miel' },
      box.ctx(),
    );
    expect(out.code).toBe('file-not-utf8');
    expect(out.content.startsWith('[file-not-utf8] ')).toBe(true);
    expect(readFileSync(join(box.work, 'menu.txt'))).toEqual(latin1);
  });

  it('path-changed, when the file becomes a symbolic link after its path was checked', async () => {
    // A granted read path is checked first, and the grant decision is the last step before the open:
    // a policy that swaps the file there makes a race a person could win by luck happen every time.
    const granted = join(box.root, 'granted');
    mkdirSync(granted);
    writeFileSync(join(granted, 'app.log'), 'granted\n');
    const readPolicy = {
      ...NO_READ_PATHS,
      allows: (real: string) => {
        renameSync(join(granted, 'app.log'), join(granted, 'app.log.old'));
        symlinkSync(join(box.secret, 'secret.txt'), join(granted, 'app.log'));
        return real.startsWith(`${granted}/`);
      },
    };
    const out = await dispatchTool('read_file', { path: join(granted, 'app.log') }, box.ctx({ readPolicy }));
    expect(out.code).toBe('path-changed');
    expect(out.content.startsWith('[path-changed] ')).toBe(true);
    expect(out.content).not.toContain(SECRET);
  });

  it('path-changed, when a folder on the path becomes a symbolic link after the path was checked', async () => {
    const granted = join(box.root, 'granted-dir');
    mkdirSync(join(granted, 'logs'), { recursive: true });
    writeFileSync(join(granted, 'logs', 'app.log'), 'granted\n');
    const readPolicy = {
      ...NO_READ_PATHS,
      allows: (real: string) => {
        renameSync(join(granted, 'logs'), join(granted, 'logs.old'));
        symlinkSync(box.secret, join(granted, 'logs'));
        return real.startsWith(`${granted}/`);
      },
    };
    const out = await dispatchTool('read_file', { path: join(granted, 'logs', 'app.log') }, box.ctx({ readPolicy }));
    expect(out.code).toBe('path-changed');
    expect(out.content).not.toContain(SECRET);
  });

  it('file-unreadable, when the process has no file descriptor left to open it with', () => {
    // Permissions cannot refuse root, but the descriptor table refuses everyone: a child process with a
    // small limit fills its table, then asks read_file for an ordinary file.
    const script = join(scratch, 'no-fds.mts');
    writeFileSync(
      script,
      `import { closeSync, openSync } from 'node:fs';
import { dispatchTool } from ${JSON.stringify(join(ROOT, 'src/tools/dispatch.ts'))};
import { NO_READ_PATHS } from ${JSON.stringify(join(ROOT, 'src/tools/read-paths.ts'))};
const held: number[] = [];
for (;;) {
  try {
    held.push(openSync('/dev/null', 'r'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EMFILE') break;
    throw err;
  }
}
const out = await dispatchTool('read_file', { path: 'a.txt' }, {
  workdir: process.argv[2] ?? '',
  readPolicy: NO_READ_PATHS,
  permissions: { tools: {} },
  safeCommands: [],
  unattended: true,
  attempt: 1,
});
for (const fd of held) closeSync(fd);
process.stdout.write(JSON.stringify(out));
`,
    );
    const child = spawnSync(
      'sh',
      ['-c', 'ulimit -n 256 && exec "$0" --import tsx "$@"', process.execPath, script, box.work],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(child.stderr).toBe('');
    const out = JSON.parse(child.stdout) as { code: string; content: string };
    expect(out.code).toBe('file-unreadable');
    expect(out.content).toMatch(/^\[file-unreadable\] a\.txt cannot be opened \(EMFILE/);
  });

  it('workdir-missing', async () => {
    const ctx = box.ctx({ workdir: join(scratch, 'gone') });
    expect((await dispatchTool('shell', { command: 'true' }, ctx)).code).toBe('workdir-missing');
  });

  it('shell-failed', async () => {
    const path = process.env.PATH;
    process.env.PATH = join(scratch, 'no-bin');
    try {
      const ctx = { ...box.ctx(), sandbox: { kind: 'none' as const, env: [], readRoots: [] } };
      expect((await dispatchTool('shell', { command: 'true' }, ctx)).code).toBe('shell-failed');
    } finally {
      process.env.PATH = path;
    }
  });
});

const CALL = { provider: 'openai', model: 'gpt-x', baseURL: 'http://localhost', timeoutMs: 1000, secrets: [] };

describe('provider codes', () => {
  it('every provider failure class has a registered code', () => {
    for (const kind of PROVIDER_ERROR_KINDS) expect(isRuntimeCode(`provider-${kind}`), kind).toBe(true);
  });

  it.each([
    [400, 'provider-bad-request'],
    [401, 'provider-auth'],
    [403, 'provider-forbidden'],
    [404, 'provider-not-found'],
    [500, 'provider-server'],
  ])('HTTP %i is %s', (status, code) => {
    expect(classifyFailure({ status, serverMessage: 'no' }, CALL).code).toBe(code);
  });

  it('provider-context-length, provider-timeout and provider-connection', () => {
    const failed = (facts: Partial<FailureFacts>) => classifyFailure({ serverMessage: 'no', ...facts }, CALL).code;
    expect(failed({ status: 400, serverMessage: 'maximum context length is 8192 tokens' })).toBe(
      'provider-context-length',
    );
    expect(failed({ timedOut: true })).toBe('provider-timeout');
    expect(failed({ connectionFailed: true })).toBe('provider-connection');
  });
});

describe('cli and dev-server codes', () => {
  const stderrOf = async (...args: string[]) => (await lev(args, { cwd: ROOT })).stderr;

  it('bad-input', async () => {
    expect(await stderrOf('run', 'blueprints/demo', '--task', 'x', '--input', 'novalue')).toContain('[bad-input]');
  });

  it('blueprint-invalid', async () => {
    const dir = join(scratch, 'broken');
    mkdirSync(dir);
    writeFileSync(join(dir, 'agent.toml'), '[agent\nname = "x"\n');
    expect(await stderrOf('run', dir, '--task', 'x')).toContain('[blueprint-invalid]');
  });

  it('server-unreachable', async () => {
    expect(await stderrOf('run', 'blueprints/demo', '--task', 'x', '--address', '192.0.2.1:7233')).toContain(
      '[server-unreachable]',
    );
  });

  it('port-busy', async () => {
    const busy = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => busy.once('listening', r));
    const port = (busy.address() as { port: number }).port;
    const code = await levErrorCode(() =>
      startDevServer({ cli: 'unused', dbFile: join(scratch, 'db'), port, uiPort: port }),
    );
    busy.close();
    expect(code).toBe('port-busy');
  });

  it('server-exited and server-timeout', async () => {
    const exits = join(scratch, 'exits.sh');
    const hangs = join(scratch, 'hangs.sh');
    writeFileSync(exits, '#!/bin/sh\nexit 1\n');
    writeFileSync(hangs, '#!/bin/sh\nexec sleep 30\n');
    chmodSync(exits, 0o755);
    chmodSync(hangs, 0o755);
    const start = async (cli: string, readyTimeoutMs: number) =>
      startDevServer({
        cli,
        dbFile: join(scratch, 'db'),
        port: await freePort(),
        uiPort: await freePort(),
        readyTimeoutMs,
      });
    // The exit ends the wait whatever its length, so a long one never turns a slow exit into a timeout.
    expect(await levErrorCode(() => start(exits, 60_000))).toBe('server-exited');
    let server: Awaited<ReturnType<typeof start>> | undefined;
    expect(
      await levErrorCode(async () => {
        server = await start(hangs, 100);
      }),
    ).toBe('server-timeout');
    await server?.stop();
  });
});

describe('output codes', () => {
  it('output-too-large', () => {
    const loaded = loadToml('[stages.answer]\nmode = "output"\nmodel = "scripted:any"\n');
    if (!loaded.blueprint) throw new Error(JSON.stringify(loaded.diagnostics));
    const submitted = submitOutput(loaded.blueprint, 'answer', { content: 'x'.repeat(MAX_ANSWER_BYTES + 1) });
    expect(submitted).toMatchObject({ ok: false, reply: expect.stringMatching(/^\[output-too-large\] /) });
    expect(submitOutput(loaded.blueprint, 'answer', { content: 'x'.repeat(MAX_ANSWER_BYTES) }).ok).toBe(true);
  });
});

describe('seed codes', () => {
  it('seed-failed, when the seed activity fails without a code of its own', () => {
    const timedOut = new ActivityFailure(
      'Activity task timed out',
      'resolveSeeds',
      '1',
      RetryState.TIMEOUT,
      'worker',
      new TimeoutFailure('timed out', undefined, TimeoutType.START_TO_CLOSE),
    );
    expect(failureCause(timedOut, 'seed-failed')).toEqual({ code: 'seed-failed', message: 'timed out' });
  });

  it('seed-file-not-utf8', async () => {
    writeFileSync(join(scratch, 'legacy.txt'), Buffer.from('na\xefve\n', 'latin1'));
    const seeded = await resolveSeed(region('notes', { form: 'files', paths: ['legacy.txt'] }), seedInputs(scratch));
    expect(seeded.warnings.map((w) => w.code)).toEqual(['seed-file-not-utf8']);
    expect(seeded.texts).toEqual([{ key: 'legacy.txt', text: 'na\ufffdve\n' }]);
  });

  it('seed-file-truncated', async () => {
    const big = join(scratch, 'big.log');
    writeFileSync(big, '');
    truncateSync(big, SEED_FILE_MAX_BYTES + 1);
    const seeded = await resolveSeed(region('log', { form: 'files', paths: ['big.log'] }), seedInputs(scratch));
    expect(seeded.warnings.map((w) => w.code)).toContain('seed-file-truncated');
  });
});
