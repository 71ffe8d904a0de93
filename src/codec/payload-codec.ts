/**
 * The payload codec of encrypted deployments (docs/reference/operating.md#encrypted-payloads):
 * each payload, metadata and all, becomes one `binary/encrypted` payload
 * whose data is the original serialised and sealed with AES-256-GCM, and
 * whose metadata names only the key that sealed it. Payloads that are not
 * encrypted pass through decoding untouched, so histories written before
 * the key was set still read.
 */
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { configuredKeyring, type Keyring } from './keys.js';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
const KEY_ID_FIELD = 'encryption-key-id';

/** The SDK's own protobuf of a payload, so the codec server and any Temporal tool agree on the bytes. */
const { Payload: PayloadMessage } = proto.temporal.api.common.v1;
const text = new TextEncoder();
const fromText = new TextDecoder();

export class AesGcmPayloadCodec implements PayloadCodec {
  constructor(readonly keys: Keyring) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const sealed = this.keys.seal(PayloadMessage.encode(payload).finish());
      return {
        metadata: { encoding: text.encode(ENCRYPTED_ENCODING), [KEY_ID_FIELD]: text.encode(sealed.keyId) },
        data: sealed.bytes,
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const meta = payload.metadata ?? {};
      if (!meta.encoding || fromText.decode(meta.encoding) !== ENCRYPTED_ENCODING) return payload;
      const keyId = meta[KEY_ID_FIELD] ? fromText.decode(meta[KEY_ID_FIELD]) : '';
      const plain = this.keys.open({ keyId, bytes: Buffer.from(payload.data ?? new Uint8Array()) });
      return PayloadMessage.decode(plain);
    });
  }
}

/**
 * `{ dataConverter }` to spread into a client's or worker's options: the
 * codec when a key file is configured, nothing otherwise. Every client and
 * worker Leviath makes goes through here, so one setting covers them all.
 */
export function codecOption(env: NodeJS.ProcessEnv = process.env): {
  dataConverter?: { payloadCodecs: PayloadCodec[] };
} {
  const keys = configuredKeyring(env);
  return keys ? { dataConverter: { payloadCodecs: [new AesGcmPayloadCodec(keys)] } } : {};
}
