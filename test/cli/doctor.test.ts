/**
 * `lev doctor --no-server` (docs/reference/commands.md#lev-doctor): the
 * config, the model and one real inference over HTTP against a local server
 * playing Anthropic's API. The server round trip is
 * test/integration/doctor.test.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/** `lev doctor --no-server --json` with no provider key but those `env` sets; the wire server in this process answers it. */
async function doctor(env: Record<string, string>, ...args: string[]): Promise<{ code: number; out: string }> {
  const r = await lev(['doctor', '--no-server', '--json', ...args], {
    env: { ...withoutProviderKeys(), LEVIATH_CONFIG: join(scratch, 'none.toml'), ...env },
  });
  return { code: r.code, out: r.stdout };
}

const anthropic = () => ({ ANTHROPIC_API_KEY: 'sk-ant-test-1', ANTHROPIC_BASE_URL: server.url });

describe('lev doctor', () => {
  it('passes when the config parses and one inference comes back', async () => {
    server.respond(() => pong);
    const r = await doctor(anthropic());
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report.passed).toBe(true);
    expect(report.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).toEqual([
      ['config', true],
      ['model', true],
      ['inference', true],
    ]);
    expect(report.checks[2].detail).toMatch(/21 in \/ 2 out, replied "PONG"/);
    expect(server.requests.at(-1)?.body.max_tokens).toBe(64);
  });

  it('fails at the inference when the key is refused, naming the provider code', async () => {
    server.respond(() => ({
      status: 401,
      json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
    }));
    const r = await doctor(anthropic());
    expect(r.code).toBe(1);
    const failed = JSON.parse(r.out).checks.at(-1);
    expect(failed).toMatchObject({ name: 'inference', ok: false });
    expect(failed.detail).toMatch(/\[provider-auth\].*ANTHROPIC_API_KEY/);
  });

  it('fails at the model when no key is set, and at the config when it does not parse', async () => {
    const none = JSON.parse((await doctor({})).out);
    expect(none.checks.at(-1)).toMatchObject({ name: 'model', ok: false });
    expect(none.checks.at(-1).detail).toMatch(/no provider key is set/);
    writeFileSync(join(scratch, 'broken.toml'), '[security\n');
    const broken = await doctor({ ...anthropic(), LEVIATH_CONFIG: join(scratch, 'broken.toml') });
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.out).checks).toMatchObject([{ name: 'config', ok: false }]);
  });
});
