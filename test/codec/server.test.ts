import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningCodecServer, startCodecServer } from '../../src/codec/decode-server.js';
import { parseKeyFile } from '../../src/codec/keys.js';
import { AesGcmPayloadCodec } from '../../src/codec/payload-codec.js';
import { lev } from '../cli/lev-in-process.js';

const codec = new AesGcmPayloadCodec(parseKeyFile(`k1 ${randomBytes(32).toString('base64')}`, 'keys'));
const UI = 'http://127.0.0.1:8233';

describe('lev codec-server', () => {
  let server: RunningCodecServer;
  beforeAll(async () => {
    server = await startCodecServer({ codec, host: '127.0.0.1', port: 0, allowOrigins: [UI] });
  });
  afterAll(() => server?.close());

  const post = (path: string, payloads: unknown[], origin = UI) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: origin, 'X-Namespace': 'default' },
      body: JSON.stringify({ payloads }),
    });

  it('decodes what the workers encrypted, in the JSON the Web UI and the temporal CLI send', async () => {
    const [sealed] = await codec.encode([defaultPayloadConverter.toPayload('the secret task')]);
    const wire = {
      metadata: Object.fromEntries(
        Object.entries(sealed!.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')]),
      ),
      data: Buffer.from(sealed!.data!).toString('base64'),
    };
    const res = await post('/decode', [wire]);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(UI);
    const { payloads } = (await res.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
    expect(Buffer.from(payloads[0]!.data, 'base64').toString('utf8')).toBe('"the secret task"');
    expect(Buffer.from(payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('json/plain');

    const encoded = await post('/encode', payloads);
    const back = (await encoded.json()) as { payloads: Array<{ metadata: Record<string, string> }> };
    expect(Buffer.from(back.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');
  });

  it('answers the browser preflight for the UI, and refuses pages of any other origin', async () => {
    const preflight = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { Origin: UI, 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('X-Namespace');
    expect((await post('/decode', [], 'https://evil.example')).status).toBe(403);
  });

  it('says what is wrong with a request it cannot decode', async () => {
    const res = await fetch(`${server.url}/decode`, { method: 'POST', headers: { Origin: UI }, body: 'not json' });
    expect(res.status).toBe(400);
    expect((await fetch(`${server.url}/other`, { method: 'POST', headers: { Origin: UI } })).status).toBe(404);
  });
});

describe('lev codec-server without a key', () => {
  it('refuses to start, saying which setting names the key file', async () => {
    const config = join(mkdtempSync(join(tmpdir(), 'lev-cfg-')), 'config.toml');
    writeFileSync(config, '');
    const r = await lev(['codec-server', '--listen', '127.0.0.1:0'], {
      env: { LEVIATH_CONFIG: config, LEVIATH_CODEC_KEY_FILE: '' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('[codec-not-configured]');
  });
});
