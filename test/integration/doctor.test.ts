/**
 * `lev doctor` end to end (docs/reference/commands.md#lev-doctor): after the
 * inference, a one-stage run goes through the real dev server and a worker
 * the command starts in its own process.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { startWireServer, type WireServer } from '../providers/wire-server.js';
import { temporalAddress } from './helpers.js';

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer(() => ({
    json: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-5-5',
      content: [{ type: 'text', text: 'PONG' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 21, output_tokens: 2 },
    },
  }));
});
afterAll(() => server.close());

it('proves the server and the worker with a round trip, besides the inference', async () => {
  // The sandbox is off so that the verdict does not depend on whether this machine has bubblewrap.
  const config = join(mkdtempSync(join(tmpdir(), 'lev-doctor-')), 'config.toml');
  writeFileSync(config, '[sandbox]\nkind = "none"\n');
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/_API_KEY$/.test(k)));
  const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, ['bin/lev.mjs', 'doctor', '--json', '--address', temporalAddress()], {
      env: {
        ...clean,
        LEVIATH_CONFIG: config,
        LEVIATH_BUNDLE: inject('workflowBundlePath'),
        ANTHROPIC_API_KEY: 'sk-ant-test-1',
        ANTHROPIC_BASE_URL: server.url,
      },
    });
    let text = '';
    child.stdout.on('data', (c) => {
      text += c;
    });
    child.on('close', (exit) => resolve({ code: exit, out: text }));
  });
  const report = JSON.parse(out);
  const byName = Object.fromEntries(report.checks.map((c: { name: string }) => [c.name, c]));
  for (const name of ['config', 'server', 'worker', 'provider-keys', 'model', 'inference', 'codec-key', 'metrics'])
    expect(byName[name], name).toMatchObject({ ok: true });
  expect(byName.server.detail).toMatch(/answers, namespace "default"/);
  expect(byName.worker.detail).toMatch(/^run doctor-\S+ completed on /);
  expect(code).toBe(0);
}, 180_000);
