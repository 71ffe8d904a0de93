/**
 * Stopping Leviath's long-running commands as a supervisor does: SIGKILL of
 * `lev server` must not leave `temporal` holding the port, and SIGTERM stops
 * `lev server`, `lev worker` and `lev run` (a run waiting on a hung model
 * call hands that call back and exits).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, portAnswers } from '../../src/devserver/net.js';
import { startWireServer, type WireServer } from '../providers/wire-server.js';
import { temporalAddress } from './helpers.js';
import { tempDir } from './run-helpers.js';

const LEV = join(import.meta.dirname, '..', '..', 'bin', 'lev.mjs');

interface Lev {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `lev …` and resolves once its output contains `ready`. */
function startLev(args: string[], ready: string, env: Record<string, string> = {}): Promise<Lev> {
  const child = spawn(process.execPath, [LEV, ...args], {
    env: { ...process.env, TEMPORAL_CLI: inject('temporalCli'), ...env },
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      out += `\n(exit ${code}, signal ${signal})\n`;
      resolve(code);
    }),
  );
  return new Promise((resolve, reject) => {
    const check = () => {
      if (out.includes(ready)) resolve({ child, output: () => out, exited });
    };
    for (const stream of [child.stdout, child.stderr])
      stream?.on('data', (d) => {
        out += String(d);
        check();
      });
    void exited.then((code) => reject(new Error(`lev ${args[0]} exited with ${code} before "${ready}": ${out}`)));
  });
}

async function until(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting until ${what}`);
}

describe('signals', () => {
  const children: ChildProcess[] = [];
  let wire: WireServer;
  beforeAll(async () => {
    wire = await startWireServer(() => ({ hang: true }));
  });
  afterAll(() => wire?.close());
  afterEach(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });

  async function levServer(): Promise<{ lev: Lev; port: number }> {
    const [port, uiPort] = [await freePort(), await freePort()];
    const db = join(tempDir('signals'), 'temporal.sqlite');
    const lev = await startLev(
      ['server', '--db', db, '--port', String(port), '--ui-port', String(uiPort)],
      'Press Ctrl-C to stop.',
    );
    children.push(lev.child);
    expect(await portAnswers(port, '127.0.0.1')).toBe(true);
    return { lev, port };
  }

  it('takes temporal down when lev server is killed with SIGKILL', async () => {
    const { lev, port } = await levServer();
    lev.child.kill('SIGKILL');
    await lev.exited;
    await until(async () => !(await portAnswers(port, '127.0.0.1')), `port ${port} is free`);
  });

  it('stops lev server and its temporal on SIGTERM', async () => {
    const { lev, port } = await levServer();
    lev.child.kill('SIGTERM');
    expect(await lev.exited).toBe(0);
    expect(lev.output()).toContain('Temporal dev server stopped.');
    expect(await portAnswers(port, '127.0.0.1')).toBe(false);
  });

  it('stops lev worker on SIGTERM', async () => {
    const lev = await startLev(
      ['worker', '--address', temporalAddress(), '--task-queue', `signals-${process.pid}`],
      'worker polling',
    );
    children.push(lev.child);
    lev.child.kill('SIGTERM');
    expect(await lev.exited).toBe(0);
  });

  it('stops lev run on SIGTERM while a model call hangs', async () => {
    const dir = tempDir('signals-bp');
    writeFileSync(
      join(dir, 'agent.toml'),
      `[agent]\nname = "hangs"\nmodel = "openai:gpt-4o"\n[context.regions]\ntask = { kind = "pinned", max_tokens = 500 }\n[stages.main]\n`,
    );
    const before = wire.requests.length;
    const lev = await startLev(
      ['run', dir, '--task', 'wait', '--address', temporalAddress(), '--task-queue', `signals-run-${process.pid}`],
      'started on',
      { OPENAI_BASE_URL: `${wire.url}/v1`, OPENAI_API_KEY: 'sk-signals-0123456789' },
    );
    children.push(lev.child);
    await until(() => wire.requests.length > before, 'the model call arrives');
    lev.child.kill('SIGTERM');
    expect(await lev.exited).toBe(143);
    // SIGTERM stops the command without handing the run to a background process (docs/reference/operators.md#ctrl-c).
    expect(lev.output()).toMatch(
      /stopped on SIGTERM; run \S+ stays on the server, and `lev attach \S+ --address \S+` resumes it\./,
    );
    expect(lev.output()).not.toContain('in the background');
  });
});
