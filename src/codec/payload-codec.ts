/**
 * The payload codec of encrypted deployments (docs/reference/operating.md#encrypted-payloads):
 * each payload, metadata and all, becomes one `binary/encrypted` payload
 * whose data is the original serialised and sealed with AES-256-GCM, and
 * whose metadata names only the key that sealed it. Payloads that are not
 * encrypted pass through decoding untouched, so histories written before
 * the key was set still read.
 */
import { ApplicationFailure, type Payload, type PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { KEY_MISSING_SENTENCE, markThrownHere } from './key-missing.js';
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
      if (!isEncrypted(payload)) return payload;
      const meta = payload.metadata ?? {};
      const keyId = meta[KEY_ID_FIELD] ? fromText.decode(meta[KEY_ID_FIELD]) : '';
      const plain = this.keys.open({ keyId, bytes: Buffer.from(payload.data ?? new Uint8Array()) });
      return PayloadMessage.decode(plain);
    });
  }
}

function isEncrypted(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  return encoding !== undefined && encoding !== null && fromText.decode(encoding) === ENCRYPTED_ENCODING;
}

/**
 * The codec of a process without the key (docs/reference/operating.md#without-the-key):
 * it writes payloads as they are and reads the plain ones, and refuses an
 * encrypted one with a retryable `codec-key-missing` failure instead of
 * letting the payload converter meet it. Where that failure lands is what
 * keeps runs alive: in a worker's decoding of a workflow activation it fails
 * the workflow task, not the workflow, and the server hands the task out
 * again; in an activity's input it fails that attempt retryably (the SDK
 * never marks an input it could not decode non-retryable). Without this
 * codec the converter's "Unknown encoding" surfaced inside workflow code,
 * which failed the run. `onMissing` lets a worker stop polling
 * (`src/worker/key-stop.ts`), so the retries go to a worker with the key.
 */
export class KeylessCodec implements PayloadCodec {
  constructor(private readonly onMissing: () => void = () => {}) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    if (!payloads.some(isEncrypted)) return payloads;
    this.onMissing();
    throw markThrownHere(
      ApplicationFailure.create({ message: KEY_MISSING_SENTENCE, type: 'codec-key-missing', nonRetryable: false }),
    );
  }
}

/**
 * `{ dataConverter }` to spread into a client's or worker's options: the
 * AES codec when a key file is configured, the keyless one otherwise. Every
 * client and worker Leviath makes goes through here, so one setting covers
 * them all; a worker passes `onMissing` to hear when it met a payload it
 * cannot read.
 */
export function codecOption(
  env: NodeJS.ProcessEnv = process.env,
  onMissing?: () => void,
): { dataConverter: { payloadCodecs: PayloadCodec[] } } {
  const keys = configuredKeyring(env);
  return { dataConverter: { payloadCodecs: [keys ? new AesGcmPayloadCodec(keys) : new KeylessCodec(onMissing)] } };
}
