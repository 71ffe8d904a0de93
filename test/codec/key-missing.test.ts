import { randomBytes } from 'node:crypto';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { KEY_MISSING_SENTENCE, keyMissingError } from '../../src/codec/key-missing.js';
import { parseKeyFile } from '../../src/codec/keys.js';
import { AesGcmPayloadCodec, codecOption, KeylessCodec } from '../../src/codec/payload-codec.js';

const plain = defaultPayloadConverter.toPayload({ task: 'the secret task' });
const sealed = async () =>
  (await new AesGcmPayloadCodec(parseKeyFile(`k1 ${randomBytes(32).toString('base64')}`, 'keys')).encode([plain]))[0]!;

describe('a process without the codec key (docs/reference/operating.md#without-the-key)', () => {
  it('writes payloads as they are and reads the plain ones', async () => {
    let met = 0;
    const codec = new KeylessCodec(() => met++);
    expect(await codec.encode([plain])).toEqual([plain]);
    expect(await codec.decode([plain])).toEqual([plain]);
    expect(met).toBe(0);
  });

  it('refuses an encrypted payload with a retryable codec-key-missing failure and says so to its worker', async () => {
    let met = 0;
    const codec = new KeylessCodec(() => met++);
    const refused = await codec.decode([plain, await sealed()]).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect(refused).toMatchObject({ type: 'codec-key-missing', nonRetryable: false, message: KEY_MISSING_SENTENCE });
    expect(met).toBe(1);
  });

  it('is the codec of every client and worker made without a key', async () => {
    const [codec] = codecOption({ LEVIATH_CODEC_KEY_FILE: '' }).dataConverter.payloadCodecs;
    await expect(codec!.decode([await sealed()])).rejects.toMatchObject({ type: 'codec-key-missing' });
  });

  it('turns its own refusal, however wrapped, into one coded line, and nothing else', async () => {
    const refusal = await new KeylessCodec().decode([await sealed()]).catch((err: unknown) => err);
    const wrapped = new Error('query failed', { cause: new Error('decoding', { cause: refusal }) });
    expect(keyMissingError(wrapped)).toMatchObject({ code: 'codec-key-missing', message: KEY_MISSING_SENTENCE });
    // The same failure type answered by another process (a keyless worker's query) says nothing of this one's key.
    const remote = ApplicationFailure.create({ message: KEY_MISSING_SENTENCE, type: 'codec-key-missing' });
    expect(keyMissingError(remote)).toBeUndefined();
    expect(keyMissingError(new Error('Unknown encoding'))).toBeUndefined();
    expect(keyMissingError(undefined)).toBeUndefined();
  });
});
