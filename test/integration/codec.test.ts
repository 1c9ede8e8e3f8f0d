// Encrypted payloads end to end on a real Temporal dev server: a client and a worker sharing the
// AES-GCM data converter run a workflow; its stored history holds only binary/encrypted payloads
// (search attributes stay clear), no plain text, and decodes back with the codec.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter, defineSearchAttributeKey, SearchAttributeType, type Payload } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CodecKeys } from '../../temporal/codec-keys';
import { AesGcmPayloadCodec, dataConverterFor, ENCRYPTED_ENCODING, ENCRYPTION_KEY_ID_METADATA } from '../../temporal/payload-codec';
import { addNoteSignal, echoStateQuery, setSuffixUpdate, type codecEcho, type CodecEchoActivities } from './fixtures/codec-echo-workflow';

const FIXTURE = path.resolve(import.meta.dirname, 'fixtures/codec-echo-workflow.ts');
const STUDY_ID = defineSearchAttributeKey('StudyflowStudy', SearchAttributeType.KEYWORD);
const run = randomBytes(4).toString('hex');
const SECRET_INPUT = `Confidential brand study ${run} for ACME-SECRET`;
const SECRET_MEMO = `Buyer memo ${run} PRIVATE`;
const SECRET_NOTE = `Operator note ${run} HUSH`;
const SECRET_SUFFIX = `suffix-${run}-QUIET`;
const keys: CodecKeys = { activeKeyId: 'k-int', keys: new Map([['k-int', randomBytes(32)]]) };

interface FoundPayload {
  path: string;
  encoding: string;
  keyId?: string;
}

/** Every payload in the proto3 JSON of a history (an object whose metadata has an encoding), with its path. */
function payloadsIn(node: unknown, at = ''): FoundPayload[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => payloadsIn(item, `${at}[${i}]`));
  if (!node || typeof node !== 'object') return [];
  const record = node as Record<string, unknown>;
  const metadata = record.metadata as Record<string, string> | undefined;
  if (metadata && typeof metadata === 'object' && typeof metadata.encoding === 'string') {
    const decode = (value?: string) => (value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8'));
    return [{ path: at, encoding: decode(metadata.encoding)!, keyId: decode(metadata[ENCRYPTION_KEY_ID_METADATA]) }];
  }
  return Object.entries(record).flatMap(([key, value]) => payloadsIn(value, `${at}.${key}`));
}

/** The same walk over the History object itself, collecting the Payload objects for decoding. */
function payloadObjectsIn(node: unknown, skip: (key: string) => boolean): Payload[] {
  if (Array.isArray(node)) return node.flatMap((item) => payloadObjectsIn(item, skip));
  if (!node || typeof node !== 'object' || ArrayBuffer.isView(node)) return [];
  const record = node as Record<string, unknown>;
  if (record.metadata && typeof record.metadata === 'object' && (record.metadata as Record<string, unknown>).encoding) return [record as Payload];
  return Object.entries(record).flatMap(([key, value]) => (skip(key) ? [] : payloadObjectsIn(value, skip)));
}

describe('encrypted payloads on a real Temporal server', () => {
  let connection: Connection;
  let nativeConnection: NativeConnection;
  let client: Client;
  const taskQueue = `codec-echo-${run}`;
  const workflowId = `codec-echo-${run}`;

  beforeAll(async () => {
    const address = inject('temporalAddress');
    connection = await Connection.connect({ address });
    nativeConnection = await NativeConnection.connect({ address });
    client = new Client({ connection, namespace: 'default', dataConverter: dataConverterFor(keys) });
  });
  afterAll(async () => {
    await client?.workflow
      .getHandle(workflowId)
      .terminate('test finished')
      .catch(() => undefined);
    await connection?.close();
    await nativeConnection?.close();
  });

  it('stores only binary/encrypted payloads, no plain text, and the history decodes with the codec', async () => {
    const activities: CodecEchoActivities = { shout: async (text) => `${text.toUpperCase()}!` };
    const worker = await Worker.create({
      connection: nativeConnection,
      namespace: 'default',
      taskQueue,
      workflowsPath: FIXTURE,
      activities,
      dataConverter: dataConverterFor(keys),
    });

    const result = await worker.runUntil(async () => {
      const handle = await client.workflow.start<typeof codecEcho>('codecEcho', {
        taskQueue,
        workflowId,
        args: [{ text: SECRET_INPUT }],
        memo: { title: SECRET_MEMO },
        typedSearchAttributes: [{ key: STUDY_ID, value: `codec-echo-${run}` }],
      });
      await handle.signal(addNoteSignal, SECRET_NOTE);
      expect(await handle.executeUpdate(setSuffixUpdate, { args: [SECRET_SUFFIX] })).toBe(`suffix set: ${SECRET_SUFFIX}`);
      expect(await handle.query(echoStateQuery)).toEqual({ note: SECRET_NOTE, suffix: SECRET_SUFFIX });
      const done = await handle.result();
      // The memo once the workflow is done: lastEcho is upserted after the echo activity, which may still run above.
      const description = await handle.describe();
      expect(description.memo).toEqual({ title: SECRET_MEMO, lastEcho: `${SECRET_INPUT.toUpperCase()}!` });
      return done;
    });
    expect(result).toEqual({ echoed: `${SECRET_INPUT.toUpperCase()}!`, note: SECRET_NOTE, suffix: SECRET_SUFFIX });

    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const json = historyToJSON(history);
    const found = payloadsIn(JSON.parse(json));
    const searchAttributes = found.filter((p) => /\.searchAttributes\./.test(p.path));
    const payloads = found.filter((p) => !/\.searchAttributes\./.test(p.path));
    // input, memo, activity input and result, memo upsert, signal, update input and result, workflow result
    expect(payloads.length).toBeGreaterThanOrEqual(9);
    for (const payload of payloads) {
      expect(payload, payload.path).toMatchObject({ encoding: ENCRYPTED_ENCODING, keyId: 'k-int' });
    }
    for (const where of ['workflowExecutionStartedEventAttributes.input', 'workflowExecutionStartedEventAttributes.memo', 'activityTaskScheduledEventAttributes.input', 'activityTaskCompletedEventAttributes.result', 'workflowExecutionSignaledEventAttributes.input', 'workflowPropertiesModifiedEventAttributes.upsertedMemo', 'workflowExecutionUpdateAcceptedEventAttributes', 'workflowExecutionUpdateCompletedEventAttributes', 'workflowExecutionCompletedEventAttributes.result']) {
      expect(payloads.some((p) => p.path.includes(where)), where).toBe(true);
    }
    // Search attributes are not payloads of the codec: clear identifiers, as designed.
    expect(searchAttributes.length).toBeGreaterThan(0);
    expect(searchAttributes.every((p) => p.encoding === 'json/plain')).toBe(true);

    // No plain text anywhere: not in the JSON, not in any base64-decoded field.
    const decodedFields = [...json.matchAll(/"([A-Za-z0-9+/]{8,}={0,2})"/g)].map((m) => Buffer.from(m[1], 'base64').toString('latin1'));
    for (const secret of [SECRET_INPUT, SECRET_MEMO, SECRET_NOTE, SECRET_SUFFIX, 'ACME-SECRET', `${run} PRIVATE`, `${run} HUSH`, `${run}-QUIET`]) {
      expect(json).not.toContain(secret);
      expect(decodedFields.some((field) => field.includes(secret)), secret).toBe(false);
    }

    // The stored history decodes with the codec (as the codec server would for the UI).
    const codec = new AesGcmPayloadCodec(keys);
    const stored = payloadObjectsIn(history, (key) => key === 'searchAttributes');
    expect(stored).toHaveLength(payloads.length);
    const values = (await codec.decode(stored)).map((p) => defaultPayloadConverter.fromPayload(p));
    expect(values).toEqual(
      expect.arrayContaining([
        { text: SECRET_INPUT },
        SECRET_MEMO,
        SECRET_INPUT,
        `${SECRET_INPUT.toUpperCase()}!`,
        SECRET_NOTE,
        SECRET_SUFFIX,
        `suffix set: ${SECRET_SUFFIX}`,
        { echoed: `${SECRET_INPUT.toUpperCase()}!`, note: SECRET_NOTE, suffix: SECRET_SUFFIX },
      ]),
    );
  });
});
