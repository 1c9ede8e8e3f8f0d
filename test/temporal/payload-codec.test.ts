// The AES-256-GCM payload codec: round trips of real SDK payloads, fresh IVs, tamper detection,
// key rotation, pass-through of clear payloads, and errors that name key ids only.
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { decodeFromPayloadsAtIndex, loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CodecKeys } from '../../temporal/codec-keys';
import {
  AesGcmPayloadCodec,
  dataConverterFor,
  ENCRYPTED_ENCODING,
  ENCRYPTION_KEY_ID_METADATA,
  isEncryptedPayload,
  KeylessPayloadCodec,
  PayloadDecryptionError,
} from '../../temporal/payload-codec';
import { dataConverterFromEnv } from '../../temporal/temporal-connection';
import { describeError as describeUnexpected } from '../../client/errors';

const keyBytes = new Map(['k1', 'k2'].map((id) => [id, randomBytes(32)]));
function ring(...ids: string[]): CodecKeys {
  return { activeKeyId: ids[0], keys: new Map(ids.map((id) => [id, keyBytes.get(id)!])) };
}

const SECRET_TEXT = 'Quarterly brand tracker for ACME-SECRET-7731';
const desired = { desired: { study: 'brand-tracker', name: SECRET_TEXT, filling_goal: 1200, locales: ['en_US', 'de_DE'] } };
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('utf8');

function realPayloads(): Payload[] {
  return [
    defaultPayloadConverter.toPayload(desired),
    defaultPayloadConverter.toPayload(SECRET_TEXT),
    defaultPayloadConverter.toPayload(undefined),
    defaultPayloadConverter.toPayload(null),
    defaultPayloadConverter.toPayload(new TextEncoder().encode(SECRET_TEXT)),
    defaultPayloadConverter.toPayload(42),
  ];
}

async function decodeError(codec: AesGcmPayloadCodec, payloads: Payload[]): Promise<PayloadDecryptionError> {
  try {
    await codec.decode(payloads);
  } catch (error) {
    expect(error).toBeInstanceOf(PayloadDecryptionError);
    return error as PayloadDecryptionError;
  }
  throw new Error('expected decode to fail');
}

describe('AesGcmPayloadCodec', () => {
  const codec = new AesGcmPayloadCodec(ring('k1'));

  it('round-trips payloads of the default payload converter, values and metadata intact', async () => {
    const original = realPayloads();
    const encoded = await codec.encode(original);
    expect(encoded).toHaveLength(original.length);
    for (const payload of encoded) {
      expect(text(payload.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
      expect(text(payload.metadata?.[ENCRYPTION_KEY_ID_METADATA])).toBe('k1');
      expect(Object.keys(payload.metadata ?? {}).sort()).toEqual(['encoding', ENCRYPTION_KEY_ID_METADATA]);
      expect(isEncryptedPayload(payload)).toBe(true);
    }
    const decoded = await codec.decode(encoded);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([
      desired,
      SECRET_TEXT,
      undefined,
      null,
      new TextEncoder().encode(SECRET_TEXT),
      42,
    ]);
    decoded.forEach((payload, i) => {
      expect(text(payload.metadata?.encoding)).toBe(text(original[i].metadata?.encoding));
      expect(Buffer.from(payload.data ?? [])).toEqual(Buffer.from(original[i].data ?? []));
    });
  });

  it('uses a fresh IV each time and the ciphertext holds no plain text', async () => {
    const payload = defaultPayloadConverter.toPayload(desired);
    const [a] = await codec.encode([payload]);
    const [b] = await codec.encode([payload]);
    expect(Buffer.from(a.data!).equals(Buffer.from(b.data!))).toBe(false);
    expect(Buffer.from(a.data!.subarray(0, 12)).equals(Buffer.from(b.data!.subarray(0, 12)))).toBe(false);
    // iv (12) + serialized payload + tag (16): the tag is there, nothing is compressed away.
    expect(a.data!.length).toBeGreaterThanOrEqual(12 + payload.data!.length + 16);
    for (const encoded of [a, b]) {
      const raw = Buffer.from(encoded.data!);
      expect(raw.includes(Buffer.from(SECRET_TEXT))).toBe(false);
      expect(raw.includes(Buffer.from('json/plain'))).toBe(false);
      expect(raw.toString('latin1')).not.toContain('ACME');
    }
  });

  it('fails authentication when any byte of the data is flipped', async () => {
    const [encoded] = await codec.encode([defaultPayloadConverter.toPayload(desired)]);
    const length = encoded.data!.length;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: length - 1 }), fc.integer({ min: 1, max: 255 }), async (index, mask) => {
        const data = Uint8Array.from(encoded.data!);
        data[index] ^= mask;
        const error = await decodeError(codec, [{ metadata: encoded.metadata, data }]);
        expect(error.code).toBe('authentication_failed');
        expect(error.keyId).toBe('k1');
      }),
      { numRuns: 150 },
    );
  });

  it('refuses truncated data and a missing key id', async () => {
    const [encoded] = await codec.encode([defaultPayloadConverter.toPayload(desired)]);
    expect((await decodeError(codec, [{ metadata: encoded.metadata, data: encoded.data!.subarray(0, 20) }])).code).toBe('malformed');
    expect((await decodeError(codec, [{ metadata: encoded.metadata, data: encoded.data!.subarray(0, encoded.data!.length - 1) }])).code).toBe(
      'authentication_failed',
    );
    const noKeyId = { metadata: { encoding: encoded.metadata!.encoding }, data: encoded.data };
    expect((await decodeError(codec, [noKeyId])).code).toBe('missing_key_id');
  });

  it('passes payloads that are not binary/encrypted through decode untouched', async () => {
    const clear = realPayloads();
    const decoded = await codec.decode(clear);
    decoded.forEach((payload, i) => expect(payload).toBe(clear[i]));
    // A mixed batch: only the encrypted one is decrypted.
    const [encrypted] = await codec.encode([defaultPayloadConverter.toPayload('inner')]);
    const mixed = await codec.decode([clear[0], encrypted]);
    expect(defaultPayloadConverter.fromPayload(mixed[0])).toEqual(desired);
    expect(defaultPayloadConverter.fromPayload(mixed[1])).toBe('inner');
  });

  it('handles an empty batch', async () => {
    expect(await codec.encode([])).toEqual([]);
    expect(await codec.decode([])).toEqual([]);
  });

  it('round-trips arbitrary JSON values', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const payload = defaultPayloadConverter.toPayload(value);
        const [decoded] = await codec.decode(await codec.encode([payload]));
        expect(defaultPayloadConverter.fromPayload(decoded)).toEqual(defaultPayloadConverter.fromPayload(payload));
      }),
      { numRuns: 150 },
    );
  });
});

describe('key rotation', () => {
  it('decodes k1 payloads with [k2, k1] and encodes new ones with k2; [k2] alone names k1 when it fails', async () => {
    const before = new AesGcmPayloadCodec(ring('k1'));
    const oldPayloads = await before.encode([defaultPayloadConverter.toPayload(desired)]);

    const rotated = new AesGcmPayloadCodec(ring('k2', 'k1'));
    expect(defaultPayloadConverter.fromPayload((await rotated.decode(oldPayloads))[0])).toEqual(desired);
    const [fresh] = await rotated.encode([defaultPayloadConverter.toPayload(desired)]);
    expect(text(fresh.metadata?.[ENCRYPTION_KEY_ID_METADATA])).toBe('k2');
    // The old codec cannot read what the rotated one writes (k2 is not held there).
    const unknownToOld = await decodeError(before, [fresh]);
    expect(unknownToOld.code).toBe('unknown_key');
    expect(unknownToOld.keyId).toBe('k2');

    const afterDrop = new AesGcmPayloadCodec(ring('k2'));
    expect(defaultPayloadConverter.fromPayload((await afterDrop.decode([fresh]))[0])).toEqual(desired);
    const error = await decodeError(afterDrop, oldPayloads);
    expect(error.code).toBe('unknown_key');
    expect(error.keyId).toBe('k1');
    expect(error.message).toContain('"k1"');
    expect(error.name).toBe('PayloadDecryptionError');
    for (const bytes of keyBytes.values()) {
      expect(error.message).not.toContain(bytes.toString('base64'));
      expect(error.message).not.toContain(bytes.toString('hex'));
    }
    expect(error.message).not.toContain(SECRET_TEXT);
  });

  it('a payload whose key id was swapped for another held key fails authentication', async () => {
    const codec = new AesGcmPayloadCodec(ring('k2', 'k1'));
    const [encoded] = await codec.encode([defaultPayloadConverter.toPayload(desired)]);
    const swapped = { metadata: { ...encoded.metadata, [ENCRYPTION_KEY_ID_METADATA]: new TextEncoder().encode('k1') }, data: encoded.data };
    expect((await decodeError(codec, [swapped])).code).toBe('authentication_failed');
  });
});

describe('dataConverterFor', () => {
  it('is undefined without keys and carries the codec with keys', async () => {
    expect(dataConverterFor(undefined)).toBeUndefined();
    const converter = dataConverterFor(ring('k1'));
    expect(converter?.payloadCodecs).toHaveLength(1);
    const [codec] = converter!.payloadCodecs!;
    const [encoded] = await codec.encode([defaultPayloadConverter.toPayload(desired)]);
    expect(isEncryptedPayload(encoded)).toBe(true);
  });

  it('refuses keys whose active id is not held', () => {
    expect(() => new AesGcmPayloadCodec({ activeKeyId: 'k3', keys: new Map([['k1', keyBytes.get('k1')!]]) })).toThrow(/"k3"/);
  });
});

describe('a process without payload keys', () => {
  it('passes clear payloads and refuses encrypted ones, naming the key id and the variables that hold keys', async () => {
    const keyless = new KeylessPayloadCodec();
    const clear = realPayloads();
    expect(await keyless.encode(clear)).toEqual(clear);
    expect(await keyless.decode(clear)).toEqual(clear);
    const encrypted = await new AesGcmPayloadCodec(ring('k1')).encode([defaultPayloadConverter.toPayload(desired)]);
    const error = await keyless.decode([...clear, ...encrypted]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PayloadDecryptionError);
    expect(error).toMatchObject({ code: 'no_key', keyId: 'k1' });
    expect((error as Error).message).toBe(
      `the workflow's payloads are encrypted with key "k1", and no payload key is set: set STUDYFLOW_CODEC_KEYS or STUDYFLOW_CODEC_KEY_FILE to the keys the workers use`,
    );
    expect((error as Error).message).not.toContain(SECRET_TEXT);
  });

  it('is what the CLI decodes with when no key is set: a query result encrypted by a worker gives the named error, not "Unknown encoding"', async () => {
    // STUDYFLOW_API_BASE_URL set (another stack than `studyflow dev` here): the dev key file is not looked for.
    // The client decodes query results and update outcomes this way, with the converter it was given.
    const converter = loadDataConverter(dataConverterFromEnv({ STUDYFLOW_API_BASE_URL: 'http://127.0.0.1:4999' }));
    const [encrypted] = await new AesGcmPayloadCodec(ring('k2')).encode([defaultPayloadConverter.toPayload({ phase: 'live' })]);
    const decoded = decodeFromPayloadsAtIndex(converter, 0, [encrypted]);
    await expect(decoded).rejects.toBeInstanceOf(PayloadDecryptionError);
    await expect(decodeFromPayloadsAtIndex(converter, 0, [encrypted])).rejects.toThrow(/payloads are encrypted with key "k2".*STUDYFLOW_CODEC_KEYS or STUDYFLOW_CODEC_KEY_FILE/);
    // And a CLI error line says so, with where `studyflow dev` keeps its key.
    const error = await decodeFromPayloadsAtIndex(converter, 0, [encrypted]).catch((e: unknown) => e);
    expect(describeUnexpected(error)).toMatch(/^the workflow's payloads are encrypted with key "k2", and no payload key is set: set STUDYFLOW_CODEC_KEYS or STUDYFLOW_CODEC_KEY_FILE .*\.studyflow\/codec-key\.json\)$/);
    // With the key, the same payload reads back.
    const withKey = loadDataConverter(dataConverterFromEnv({ STUDYFLOW_CODEC_KEYS: `k2:${keyBytes.get('k2')!.toString('base64')}` }));
    expect(await decodeFromPayloadsAtIndex(withKey, 0, [encrypted])).toEqual({ phase: 'live' });
  });

  it('names the variables when the key held is not the one the payload needs', () => {
    const error = new PayloadDecryptionError('unknown_key', 'payload is encrypted with key "k1", which this codec does not hold', 'k1');
    expect(describeUnexpected(error)).toBe(
      'payload is encrypted with key "k1", which this codec does not hold: add that key to STUDYFLOW_CODEC_KEYS or STUDYFLOW_CODEC_KEY_FILE (the keys the workers use)',
    );
  });
});
