/**
 * `lev server` as a user runs it: a child process that prints where the
 * server and UI are and keeps its workflows in SQLite across restarts; the
 * command refuses a busy port with a clear message (checked in process).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/devserver/net.js';
import { lev } from '../cli/lev-in-process.js';
import { temporalAddress } from './helpers.js';

const LEV = join(import.meta.dirname, '..', '..', 'bin', 'lev.mjs');

function startLevServer(args: string[]): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [LEV, 'server', ...args], {
    env: { ...process.env, TEMPORAL_CLI: inject('temporalCli') },
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    out += String(d);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`lev server did not become ready: ${out}`)), 90_000);
    const check = () => {
      if (out.includes('Web UI:')) {
        clearTimeout(timer);
        resolve({ child, output: () => out });
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`lev server exited with ${code}: ${out}`));
    });
  });
}

function stopGracefully(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('lev server', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  });

  it('serves the Web UI, persists to SQLite, and keeps workflows across a restart', async () => {
    const db = join(inject('integrationTmp'), 'server-command', 'persist.sqlite');
    const [port, uiPort] = [await freePort(), await freePort()];
    const args = ['--db', db, '--port', String(port), '--ui-port', String(uiPort)];

    const first = await startLevServer(args);
    children.push(first.child);
    expect(first.output()).toContain(`http://127.0.0.1:${uiPort}`);
    const ui = await fetch(`http://127.0.0.1:${uiPort}/`);
    expect(ui.status).toBe(200);
    expect(existsSync(db)).toBe(true);

    const workflowId = `survives-restart-${Date.now()}`;
    let connection = await Connection.connect({ address: `127.0.0.1:${port}` });
    // No worker serves this queue, so the run stays open across the restart.
    await new Client({ connection }).workflow.start('pingWorkflow', {
      taskQueue: 'nobody-listens',
      workflowId,
      args: ['x'],
    });
    await connection.close();
    // The file is kept with a write-ahead log beside it (docs/reference/operators.md#the-embedded-servers-database).
    expect(existsSync(`${db}-wal`)).toBe(true);
    expect(await stopGracefully(first.child)).toBe(0);

    const second = await startLevServer(args);
    children.push(second.child);
    connection = await Connection.connect({ address: `127.0.0.1:${port}` });
    const client = new Client({ connection });
    const description = await client.workflow.getHandle(workflowId).describe();
    expect(description.status.name).toBe('RUNNING');
    const listed: string[] = [];
    for await (const wf of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) listed.push(wf.workflowId);
    expect(listed).toEqual([workflowId]);
    await connection.close();
    expect(await stopGracefully(second.child)).toBe(0);
  });

  it('says clearly when the port is already taken', async () => {
    // The refusal is the command's own check, before any process starts: run in this process.
    const result = await lev(
      ['server', '--port', temporalAddress().split(':')[1]!, '--ui-port', String(await freePort())],
      { env: { TEMPORAL_CLI: inject('temporalCli') } },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\[port-busy\] Port \d+ \(gRPC\) .* already in use/);
  });
});
