// Property: whatever arrives (random bodies, encodings, content types, methods, extra headers and
// signature headers), the receiver never answers a 5xx other than its deliberate 503, never stops
// serving, answers 2xx exactly for verified CloudEvents, and calls onEvent only for those.
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REJECTION_REASONS, startWebhookReceiver, type RunningWebhookReceiver } from '../../webhooks/webhook-receiver';
import { signatureHeaderValue } from '../../webhooks/webhook-signature';
import { OTHER_SECRET, SECRET, eventually, post, signedDelivery } from './delivery-fixtures';

const MAX_BODY = 4096;
const MAX_INFLATED = 8192;

type SignatureMode = 'valid' | 'rotated_pair' | 'none' | 'garbage' | 'random_digest' | 'wrong_secret' | 'stale' | 'future' | 'tampered' | 'over_compressed';
type Body =
  | { kind: 'event'; idIndex: number; type: string; data: unknown }
  | { kind: 'json'; value: unknown }
  | { kind: 'bytes'; bytes: Uint8Array };

interface Plan {
  method: string;
  contentType: string | undefined;
  encoding: 'none' | 'gzip' | 'fake_gzip' | 'br';
  signature: SignatureMode;
  garbage: string;
  body: Body;
  extraHeaders: Record<string, string>;
}

const printable = (max: number) => fc.stringMatching(new RegExp(`^[\\x20-\\x7e]{0,${max}}$`));

const planArbitrary: fc.Arbitrary<Plan> = fc.record({
  method: fc.oneof({ weight: 8, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH') }),
  contentType: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('application/json', 'application/cloudevents+json; charset=utf-8', 'APPLICATION/JSON') },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: printable(30) },
  ),
  encoding: fc.constantFrom('none', 'none', 'gzip', 'gzip', 'fake_gzip', 'br'),
  signature: fc.constantFrom<SignatureMode>('valid', 'valid', 'valid', 'rotated_pair', 'none', 'garbage', 'random_digest', 'wrong_secret', 'stale', 'future', 'tampered', 'over_compressed'),
  garbage: printable(80),
  body: fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('event' as const),
        idIndex: fc.integer({ min: 0, max: 3 }),
        type: fc.constantFrom('target-group-updated', 'com.svc.session.updated', 'com.svc.unknown'),
        data: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ changes: fc.array(fc.record({ object: fc.string({ maxLength: 30 }), supplier_id: fc.jsonValue({ maxDepth: 1 }) }), { maxLength: 5 }) }), fc.record({ sessions: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }) })),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('json' as const), value: fc.jsonValue({ maxDepth: 3 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('bytes' as const), bytes: fc.uint8Array({ maxLength: 6000 }) }) },
  ),
  extraHeaders: fc.dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,12}$/), printable(40), { maxKeys: 3 }),
});

let receiver: RunningWebhookReceiver;
const calls = new Map<string, number>();

beforeAll(async () => {
  receiver = await startWebhookReceiver({
    secrets: () => [SECRET, OTHER_SECRET],
    maxBodyBytes: MAX_BODY,
    maxDecompressedBytes: MAX_INFLATED,
    queueLimit: 10_000,
    onEvent: async (_event, raw) => {
      calls.set(raw.id, (calls.get(raw.id) ?? 0) + 1);
      await Promise.resolve();
    },
  });
});
afterAll(() => receiver.close());

function send(url: string, method: string, headers: Record<string, string>, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...headers, connection: 'close' }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Builds the request and says whether a correct receiver must verify and accept it. */
function build(plan: Plan, run: number): { headers: Record<string, string>; body: Buffer; verifiable: boolean; eventId?: string } {
  let json: Buffer;
  let eventId: string | undefined;
  if (plan.body.kind === 'event') {
    eventId = `run-${run}-${plan.body.idIndex}`;
    const event = { id: eventId, specversion: '1.0', source: '/v1/demand/accounts/1001/projects/p/target-groups/tg-1', type: plan.body.type, time: '2026-03-01T10:00:00Z', datacontenttype: 'application/json', data: plan.body.data };
    json = Buffer.from(JSON.stringify(event));
  } else if (plan.body.kind === 'json') json = Buffer.from(JSON.stringify(plan.body.value) ?? 'null');
  else json = Buffer.from(plan.body.bytes);

  const now = Math.floor(Date.now() / 1000);
  const compressed = gzipSync(json);
  let wire = plan.encoding === 'gzip' ? compressed : json;
  const headers: Record<string, string> = { ...plan.extraHeaders };
  if (plan.contentType !== undefined) headers['content-type'] = plan.contentType;
  if (plan.encoding === 'gzip' || plan.encoding === 'fake_gzip') headers['content-encoding'] = 'gzip';
  if (plan.encoding === 'br') headers['content-encoding'] = 'br';
  const sign: Record<SignatureMode, () => string | undefined> = {
    valid: () => signatureHeaderValue(SECRET, json, now),
    rotated_pair: () => signatureHeaderValue(['whsec_retired', OTHER_SECRET], json, now),
    none: () => undefined,
    garbage: () => plan.garbage,
    random_digest: () => `t=${now},v1=${Buffer.from(plan.garbage.padEnd(32, '.').slice(0, 32)).toString('hex')}`,
    wrong_secret: () => signatureHeaderValue('whsec_attacker', json, now),
    stale: () => signatureHeaderValue(SECRET, json, now - 400),
    future: () => signatureHeaderValue(SECRET, json, now + 400),
    tampered: () => {
      const header = signatureHeaderValue(SECRET, json, now);
      const changed = Buffer.concat([json, Buffer.from(' ')]);
      wire = plan.encoding === 'gzip' ? gzipSync(changed) : changed;
      return header;
    },
    over_compressed: () => signatureHeaderValue(SECRET, compressed, now),
  };
  const signature = sign[plan.signature]();
  if (signature !== undefined) headers['svc-signature'] = signature;

  const mediaType = (plan.contentType ?? '').split(';')[0].trim().toLowerCase();
  const verifiable =
    plan.method === 'POST' &&
    (mediaType === 'application/json' || mediaType === 'application/cloudevents+json') &&
    (plan.encoding === 'none' || plan.encoding === 'gzip') &&
    (plan.signature === 'valid' || plan.signature === 'rotated_pair') &&
    plan.body.kind === 'event' &&
    wire.length <= MAX_BODY &&
    json.length <= MAX_INFLATED;
  return { headers, body: wire, verifiable, eventId };
}

describe('webhook receiver under arbitrary input', () => {
  it('answers 2xx exactly for verified CloudEvents, never a 5xx but 503, and calls onEvent only for verified events', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(planArbitrary, { minLength: 1, maxLength: 6 }), async (plans) => {
        run += 1;
        const expectedIds = new Set<string>();
        for (const plan of plans) {
          const request = build(plan, run);
          const status = await send(receiver.url, plan.method, request.headers, request.body);
          expect(status === 503 || status < 500, `status ${status}`).toBe(true);
          if (request.verifiable) {
            const first = !expectedIds.has(request.eventId as string);
            expect(status, JSON.stringify(plan.signature)).toBe(first ? 202 : 200);
            expectedIds.add(request.eventId as string);
          } else {
            expect(status).toBeGreaterThanOrEqual(400);
          }
        }
        await eventually(() => receiver.stats().queueDepth === 0);
        const delivered = [...calls.keys()].filter((id) => id.startsWith(`run-${run}-`));
        expect(new Set(delivered)).toEqual(expectedIds);
        for (const id of delivered) expect(calls.get(id)).toBe(1);
      }),
      { numRuns: 120 },
    );
    const stats = receiver.stats();
    const rejected = REJECTION_REASONS.reduce((sum, reason) => sum + stats.rejected[reason], 0);
    expect(stats.received).toBe(stats.accepted + stats.duplicates + rejected);
    expect(stats.rejected.internal_error).toBe(0);
    // Still serving.
    expect((await post(receiver.url, signedDelivery({ id: 'after-all', specversion: '1.0', source: '/x', type: 'target-group-updated', time: '2026-03-01T10:00:00Z', data: {} }))).status).toBe(202);
  });
});
