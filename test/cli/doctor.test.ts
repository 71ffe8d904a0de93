/**
 * `lev doctor --no-server` (docs/reference/commands.md#lev-doctor): every
 * check runs whatever the others found, one real inference over HTTP against
 * a local server playing Anthropic's API, the table and `--json`. The server
 * round trip is test/integration/doctor.test.ts.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stateCheck } from '../../src/cli/doctor-action.js';
import type { StateDirs } from '../../src/state/locations.js';
import { type Reply, startWireServer, type WireServer } from '../providers/wire-server.js';
import { lev, withoutProviderKeys } from './lev-in-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'lev-doctor-'));
let server: WireServer;
const pong: Reply = {
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
};

beforeAll(async () => {
  server = await startWireServer(() => pong);
});
afterAll(() => server.close());

/** A config with the sandbox off, so no verdict depends on whether this machine has bubblewrap. */
const sandboxOff = join(scratch, 'sandbox-off.toml');
writeFileSync(sandboxOff, '[sandbox]\nkind = "none"\n');

/**
 * `lev doctor --no-server --json` with no provider key but those `env` sets; the wire server in
 * this process answers it. `TEMPORAL_CLI` names an executable, so the CLI check passes anywhere.
 */
async function doctor(env: Record<string, string>, ...args: string[]): Promise<{ code: number; out: string }> {
  const r = await lev(['doctor', '--no-server', '--json', ...args], {
    env: {
      ...withoutProviderKeys(),
      LEVIATH_CONFIG: sandboxOff,
      TEMPORAL_CLI: process.execPath,
      LEVIATH_CODEC_KEY_FILE: undefined,
      LEVIATH_METRICS_ADDRESS: undefined,
      ...env,
    },
  });
  return { code: r.code, out: r.stdout };
}

type Row = { name: string; ok: boolean; skipped?: boolean; detail: string };
const row = (out: string, name: string): Row | undefined =>
  (JSON.parse(out).checks as Row[]).find((c) => c.name === name);

const anthropic = () => ({ ANTHROPIC_API_KEY: 'sk-ant-test-1', ANTHROPIC_BASE_URL: server.url });

describe('lev doctor', () => {
  it('passes when the config parses and one inference comes back', async () => {
    server.respond(() => pong);
    const r = await doctor(anthropic());
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report.passed).toBe(true);
    expect(report.checks.map((c: Row) => [c.name, c.ok, c.skipped ?? false])).toEqual([
      ['config', true, false],
      ['state', true, false],
      ['temporal-cli', true, false],
      ['server', true, true],
      ['worker', true, true],
      ['provider-keys', true, false],
      ['model', true, false],
      ['inference', true, false],
      ['codec-key', true, false],
      ['metrics', true, false],
      ['sandbox', true, false],
    ]);
    expect(row(r.out, 'inference')?.detail).toMatch(/21 in \/ 2 out, replied "PONG"/);
    expect(server.requests.at(-1)?.body.max_tokens).toBe(64);
  });

  it('fails at the inference when the key is refused, naming the provider code', async () => {
    server.respond(() => ({
      status: 401,
      json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
    }));
    const r = await doctor(anthropic());
    expect(r.code).toBe(1);
    const failed = row(r.out, 'inference');
    expect(failed).toMatchObject({ ok: false });
    expect(failed?.detail).toMatch(/\[provider-auth\].*ANTHROPIC_API_KEY/);
  });

  it('runs every check past a failure: no key, a broken config, a bad codec key and metrics address all show', async () => {
    writeFileSync(join(scratch, 'broken.toml'), '[security\n');
    const r = await doctor({
      LEVIATH_CONFIG: join(scratch, 'broken.toml'),
      LEVIATH_CODEC_KEY_FILE: join(scratch, 'no-such-key'),
      LEVIATH_METRICS_ADDRESS: 'not an address',
    });
    expect(r.code).toBe(1);
    expect(row(r.out, 'config')).toMatchObject({ ok: false });
    expect(row(r.out, 'provider-keys')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/no provider key is set/),
    });
    expect(row(r.out, 'inference')).toMatchObject({ ok: true, skipped: true });
    expect(row(r.out, 'codec-key')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^\[codec-key-unreadable\]/),
    });
    expect(row(r.out, 'metrics')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^\[metrics-bad-address\]/),
    });
    expect(row(r.out, 'sandbox')).toBeDefined();
  });

  it('checks each MCP server of the config', async () => {
    const config = join(scratch, 'mcp.toml');
    writeFileSync(
      config,
      '[sandbox]\nkind = "none"\n\n[[mcp_servers]]\nname = "gone"\ncommand = "/nonexistent/mcp-server"\n',
    );
    const r = await doctor({ ...anthropic(), LEVIATH_CONFIG: config });
    expect(r.code).toBe(1);
    expect(row(r.out, 'mcp:gone')).toMatchObject({ ok: false, detail: expect.stringMatching(/^\[mcp-unavailable\]/) });
  });

  it('checks each script provider of the config folder', async () => {
    const home = join(scratch, 'home-providers');
    mkdirSync(join(home, 'providers'), { recursive: true });
    writeFileSync(
      join(home, 'providers', 'groq.rhai'),
      'fn initialize(config) { #{} }\nfn inference(state, request) { #{} }\n',
    );
    writeFileSync(join(home, 'providers', 'half.rhai'), 'fn inference(state, request) { #{} }\n');
    const r = await doctor({ ...anthropic(), LEVIATH_HOME: home });
    expect(row(r.out, 'provider:groq')).toMatchObject({ ok: true });
    expect(row(r.out, 'provider:half')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^\[provider-script-contract\].*initialize\(config\)/),
    });
  });

  it('shows where data, config and cache are, and fails when the data folder cannot be written', () => {
    const dirs: StateDirs = { data: '/d', configFile: '/c/config.toml', cache: '/k', source: 'XDG', notices: [] };
    expect(stateCheck(dirs, () => true)).toEqual({
      name: 'state',
      ok: true,
      detail: 'data /d (XDG_DATA_HOME or ~/.local/share), config /c/config.toml, cache /k',
    });
    expect(stateCheck(dirs, () => false)).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/: the data folder cannot be written$/),
    });
    const old = stateCheck(
      { ...dirs, source: 'legacy', notices: ['lev: using the state in /w/.leviath …'] },
      () => true,
    );
    expect(old.detail).toMatch(/^data \/d \(an old \.leviath\/ found here\), .*; lev: using the state in/);
  });

  it('prints a table, FAIL on each failed row, and exits 1', async () => {
    const r = await lev(['doctor', '--no-server'], {
      env: { ...withoutProviderKeys(), LEVIATH_CONFIG: sandboxOff, TEMPORAL_CLI: process.execPath },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ {2}check +status +detail$/m);
    expect(r.stdout).toMatch(/^ {2}provider-keys +FAIL +no provider key is set/m);
    expect(r.stdout).toMatch(/^ {2}server +SKIP +not checked \(--no-server\)/m);
    expect(r.stdout).toMatch(/doctor failed: 1 check failed\n$/);
  });
});
