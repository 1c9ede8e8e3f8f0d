import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { CODEC_KEY_FILE_ENV, CODEC_KEYS_ENV, type CodecKeys } from './codec-keys';

/** `encoding` metadata of an encrypted payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata naming the key a payload was encrypted with. */
export const ENCRYPTION_KEY_ID_METADATA = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const CIPHER = 'aes-256-gcm';
// @temporalio/proto is CommonJS: Node's ESM loader exposes it as a default export only.
const ProtoPayload = proto.temporal.api.common.v1.Payload;
const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

export type PayloadDecryptionErrorCode = 'no_key' | 'unknown_key' | 'missing_key_id' | 'malformed' | 'authentication_failed';

/** A payload that cannot be decrypted. Names the key id, never key bytes or payload content. */
export class PayloadDecryptionError extends Error {
  override readonly name = 'PayloadDecryptionError';
  constructor(
    readonly code: PayloadDecryptionErrorCode,
    message: string,
    readonly keyId?: string,
  ) {
    super(message);
  }
}

/**
 * Encrypts every payload with AES-256-GCM under the active key: the whole serialized Payload (its
 * metadata too) becomes `iv | ciphertext | tag`, with metadata `encoding: binary/encrypted` and
 * `encryption-key-id`. Decoding accepts any key held and passes other payloads through.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly activeKeyId: string;
  private readonly activeKey: Uint8Array;
  private readonly keys: ReadonlyMap<string, Uint8Array>;

  constructor(keys: CodecKeys) {
    const activeKey = keys.keys.get(keys.activeKeyId);
    if (!activeKey) throw new Error(`codec keys: active key "${keys.activeKeyId}" is not among the keys`);
    this.activeKeyId = keys.activeKeyId;
    this.activeKey = activeKey;
    this.keys = keys.keys;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => (isEncryptedPayload(payload) ? this.decrypt(payload) : payload));
  }

  private encrypt(payload: Payload): Payload {
    const plain = ProtoPayload.encode(payload).finish();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, this.activeKey, iv, { authTagLength: TAG_BYTES });
    const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: {
        encoding: textEncoder.encode(ENCRYPTED_ENCODING),
        [ENCRYPTION_KEY_ID_METADATA]: textEncoder.encode(this.activeKeyId),
      },
      data,
    };
  }

  private decrypt(payload: Payload): Payload {
    const rawKeyId = payload.metadata?.[ENCRYPTION_KEY_ID_METADATA];
    if (!rawKeyId) throw new PayloadDecryptionError('missing_key_id', `encrypted payload carries no ${ENCRYPTION_KEY_ID_METADATA} metadata`);
    const keyId = textDecoder.decode(rawKeyId);
    const key = this.keys.get(keyId);
    if (!key) {
      throw new PayloadDecryptionError('unknown_key', `payload is encrypted with key "${keyId}", which this codec does not hold`, keyId);
    }
    const data = payload.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES) {
      throw new PayloadDecryptionError('malformed', `encrypted payload (key "${keyId}") is too short to hold an IV and a tag`, keyId);
    }
    let plain: Buffer;
    try {
      const decipher = createDecipheriv(CIPHER, key, data.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new PayloadDecryptionError('authentication_failed', `encrypted payload (key "${keyId}") failed authentication: altered or wrong key`, keyId);
    }
    let decoded: ReturnType<typeof ProtoPayload.decode>;
    try {
      decoded = ProtoPayload.decode(plain);
    } catch {
      throw new PayloadDecryptionError('malformed', `decrypted payload (key "${keyId}") is not a serialized Payload`, keyId);
    }
    const result: Payload = { metadata: decoded.metadata, data: decoded.data };
    if (decoded.externalPayloads?.length) result.externalPayloads = decoded.externalPayloads;
    return result;
  }
}

/**
 * The codec of a process that holds no payload keys: payloads pass as they are, and an encrypted one
 * is refused with a PayloadDecryptionError (`no_key`) that names the variables of the key, where the
 * default converter would fail with a bare "Unknown encoding: binary/encrypted".
 */
export class KeylessPayloadCodec implements PayloadCodec {
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    const encrypted = payloads.find(isEncryptedPayload);
    if (!encrypted) return payloads;
    const raw = encrypted.metadata?.[ENCRYPTION_KEY_ID_METADATA];
    const keyId = raw ? textDecoder.decode(raw) : undefined;
    // Only a well-formed id is echoed; anything else says nothing about its content.
    const named = keyId !== undefined && /^[A-Za-z0-9._-]{1,64}$/.test(keyId) ? ` with key "${keyId}"` : '';
    throw new PayloadDecryptionError(
      'no_key',
      `the workflow's payloads are encrypted${named}, and no payload key is set: set ${CODEC_KEYS_ENV} or ${CODEC_KEY_FILE_ENV} to the keys the workers use`,
      named ? keyId : undefined,
    );
  }
}

/** Whether a payload carries `encoding: binary/encrypted`. */
export function isEncryptedPayload(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  return encoding !== undefined && encoding !== null && textDecoder.decode(encoding) === ENCRYPTED_ENCODING;
}

/**
 * The data converter for Client and Worker options: the default payload converter followed by
 * the encryption codec. Undefined when no keys are configured (payloads stay clear text).
 */
export function dataConverterFor(keys: CodecKeys | undefined): DataConverter | undefined {
  if (!keys) return undefined;
  return { payloadCodecs: [new AesGcmPayloadCodec(keys)] };
}
