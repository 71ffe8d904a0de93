import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { configuredKeyFile, configuredKeyring, parseKeyFile } from '../../src/codec/keys.js';
import { AesGcmPayloadCodec, codecOption, ENCRYPTED_ENCODING, KeylessCodec } from '../../src/codec/payload-codec.js';
import type { LevError } from '../../src/errors.js';

const keyLine = (id: string) => `${id} ${randomBytes(32).toString('base64')}`;

function file(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'lev-keys-')), name);
  writeFileSync(path, text);
  return path;
}

const code = (c: string) => expect.objectContaining({ code: c }) as LevError;

describe('the codec key file', () => {
  it('reads one key a line, the first one encrypting, comments and blank lines ignored', () => {
    const ring = parseKeyFile(`# rotated 2026-12\n${keyLine('k2')}\n\n${keyLine('k1')}  # the old one\n`, 'keys');
    expect(ring.current).toBe('k2');
    expect([...ring.keys.keys()]).toEqual(['k2', 'k1']);
  });

  it('refuses a line that is not an id and a 32-byte key, a repeated id and an empty file', () => {
    expect(() => parseKeyFile('k1 c2hvcnQ=\n', 'keys')).toThrow(code('codec-key-bad'));
    expect(() => parseKeyFile(`${keyLine('k1')}\n${keyLine('k1')}\n`, 'keys')).toThrow(code('codec-key-bad'));
    expect(() => parseKeyFile('# nothing\n', 'keys')).toThrow(code('codec-key-bad'));
  });

  it('comes from LEVIATH_CODEC_KEY_FILE, else [runtime] codec_key_file of the user config', () => {
    const keys = file('keys', `${keyLine('a')}\n`);
    const config = file('config.toml', `[runtime]\ncodec_key_file = "${keys}"\n`);
    expect(configuredKeyFile({ LEVIATH_CONFIG: config })).toBe(keys);
    expect(configuredKeyFile({ LEVIATH_CONFIG: config, LEVIATH_CODEC_KEY_FILE: '/etc/lev/keys' })).toBe(
      '/etc/lev/keys',
    );
    expect(configuredKeyFile({ LEVIATH_CONFIG: file('none.toml', '') })).toBeUndefined();
    expect(codecOption({ LEVIATH_CONFIG: file('none.toml', '') }).dataConverter.payloadCodecs).toEqual([
      expect.any(KeylessCodec),
    ]);
    expect(configuredKeyring({ LEVIATH_CONFIG: config })?.current).toBe('a');
  });

  it('says which file cannot be read', () => {
    expect(() => configuredKeyring({ LEVIATH_CODEC_KEY_FILE: '/nonexistent/lev-keys' })).toThrow(
      code('codec-key-unreadable'),
    );
  });
});

describe('the AES-256-GCM payload codec', () => {
  const payload = defaultPayloadConverter.toPayload({ task: 'the secret task' });

  it('turns a payload into one that names only its key and holds no plain text, and back', async () => {
    const codec = new AesGcmPayloadCodec(parseKeyFile(keyLine('k1'), 'keys'));
    const [sealed] = await codec.encode([payload]);
    expect(new TextDecoder().decode(sealed?.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(new TextDecoder().decode(sealed?.metadata?.['encryption-key-id'])).toBe('k1');
    expect(Buffer.from(sealed?.data ?? []).toString('latin1')).not.toContain('secret');
    const [opened] = await codec.decode([sealed!]);
    expect(defaultPayloadConverter.fromPayload(opened!)).toEqual({ task: 'the secret task' });
  });

  it('passes payloads that were never encrypted through decoding', async () => {
    const codec = new AesGcmPayloadCodec(parseKeyFile(keyLine('k1'), 'keys'));
    expect(await codec.decode([payload])).toEqual([payload]);
  });

  it('rotates: a new key on top encrypts, the old one below still decrypts what it wrote', async () => {
    const old = keyLine('k1');
    const [before] = await new AesGcmPayloadCodec(parseKeyFile(old, 'keys')).encode([payload]);
    const rotated = new AesGcmPayloadCodec(parseKeyFile(`${keyLine('k2')}\n${old}\n`, 'keys'));
    const [after] = await rotated.encode([payload]);
    expect(new TextDecoder().decode(after?.metadata?.['encryption-key-id'])).toBe('k2');
    const decoded = await rotated.decode([before!, after!]);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([
      { task: 'the secret task' },
      { task: 'the secret task' },
    ]);
  });

  it('names the missing key, and refuses a key that is not the one that encrypted', async () => {
    const [sealed] = await new AesGcmPayloadCodec(parseKeyFile(keyLine('k1'), 'keys')).encode([payload]);
    await expect(new AesGcmPayloadCodec(parseKeyFile(keyLine('k9'), 'keys')).decode([sealed!])).rejects.toThrow(
      code('codec-unknown-key'),
    );
    await expect(new AesGcmPayloadCodec(parseKeyFile(keyLine('k1'), 'keys')).decode([sealed!])).rejects.toThrow(
      code('codec-key-bad'),
    );
  });
});
