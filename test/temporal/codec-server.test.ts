// The remote codec server for the Temporal UI and CLI: proto3-JSON payloads, bearer auth, CORS for
// the configured UI origins only, a body cap, and JSON errors that leak neither data nor stacks.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodecKeys } from '../../temporal/codec-keys';
import { startCodecServer, type RunningCodecServer } from '../../temporal/codec-server';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING, ENCRYPTION_KEY_ID_METADATA } from '../../temporal/payload-codec';

const keyBytes = new Map(['k1', 'k2'].map((id) => [id, randomBytes(32)]));
function ring(...ids: string[]): CodecKeys {
  return { activeKeyId: ids[0], keys: new Map(ids.map((id) => [id, keyBytes.get(id)!])) };
}

const TOKEN = randomBytes(24).toString('base64url');
const UI_ORIGIN = 'http://localhost:8233';
const SECRET_TEXT = 'Respondent panel for ACME-SECRET-4410';
const MAX_BODY = 64 * 1024;
const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const scriptDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-codec-server-'));
afterAll(() => fs.rmSync(scriptDir, { recursive: true, force: true }));

function writeScript(source: string): string {
  const file = path.join(scriptDir, `script-${Math.random().toString(36).slice(2)}.mts`);
  fs.writeFileSync(file, source);
  return file;
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'POST', headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (options.chunked && options.body) {
      // Without Content-Length: the cap must hold while streaming.
      const body = Buffer.from(options.body);
      for (let offset = 0; offset < body.length; offset += 16 * 1024) req.write(body.subarray(offset, offset + 16 * 1024));
      req.end();
    } else {
      req.end(options.body);
    }
  });
}

function toJson(payloads: Payload[]) {
  return {
    payloads: payloads.map((p) => ({
      metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
      data: Buffer.from(p.data ?? []).toString('base64'),
    })),
  };
}

function fromJson(json: { payloads: Array<{ metadata: Record<string, string>; data?: string }> }): Payload[] {
  return json.payloads.map((p) => ({
    metadata: Object.fromEntries(Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
    data: Buffer.from(p.data ?? '', 'base64'),
  }));
}

const auth = (token = TOKEN) => ({ Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' });

describe('codec server', () => {
  let server: RunningCodecServer;
  const codec = new AesGcmPayloadCodec(ring('k1'));
  let encryptedBody: string;

  beforeAll(async () => {
    server = await startCodecServer({ keys: ring('k2', 'k1'), authToken: TOKEN, allowedOrigins: ['http://127.0.0.1:8233', UI_ORIGIN], port: 0, maxBodyBytes: MAX_BODY });
    const encrypted = await codec.encode([defaultPayloadConverter.toPayload({ desired: { name: SECRET_TEXT } }), defaultPayloadConverter.toPayload(7)]);
    encryptedBody = JSON.stringify(toJson(encrypted));
  });
  afterAll(async () => server?.close());

  it('listens on 127.0.0.1 with a free port', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url).not.toMatch(/:0$/);
  });

  it('decodes with the right token, also under a namespace path, passing clear payloads through', async () => {
    const clear = toJson([defaultPayloadConverter.toPayload('already clear')]).payloads[0];
    const body = JSON.stringify({ payloads: [...JSON.parse(encryptedBody).payloads, clear] });
    for (const path of ['/decode', '/default/decode', '/decode?x=1']) {
      const reply = await request(`${server.url}${path}`, { headers: { ...auth(), 'X-Namespace': 'default' }, body });
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('application/json');
      expect(reply.headers['cache-control']).toBe('no-store');
      const decoded = fromJson(JSON.parse(reply.body));
      expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([{ desired: { name: SECRET_TEXT } }, 7, 'already clear']);
    }
  });

  it('encodes with the active key, and what it encodes the codec decodes', async () => {
    const plain = toJson([defaultPayloadConverter.toPayload({ desired: { name: SECRET_TEXT } })]);
    const reply = await request(`${server.url}/encode`, { headers: auth(), body: JSON.stringify(plain) });
    expect(reply.status).toBe(200);
    expect(reply.body).not.toContain(Buffer.from(SECRET_TEXT).toString('base64').slice(0, 12));
    const [encoded] = fromJson(JSON.parse(reply.body));
    expect(Buffer.from(encoded.metadata!.encoding).toString()).toBe(ENCRYPTED_ENCODING);
    expect(Buffer.from(encoded.metadata![ENCRYPTION_KEY_ID_METADATA]).toString()).toBe('k2');
    const [decoded] = await new AesGcmPayloadCodec(ring('k2')).decode([encoded]);
    expect(defaultPayloadConverter.fromPayload(decoded)).toEqual({ desired: { name: SECRET_TEXT } });
  });

  it('refuses requests without a token, with a wrong one, or another scheme: 401 and no plain text', async () => {
    const plainBase64 = Buffer.from(JSON.stringify({ desired: { name: SECRET_TEXT } })).toString('base64');
    const attempts: Array<Record<string, string>> = [
      { 'Content-Type': 'application/json' },
      auth('wrong-token'),
      auth(`${TOKEN}x`),
      auth(TOKEN.slice(0, -1)),
      { Authorization: TOKEN },
      { Authorization: `Basic ${TOKEN}` },
      { Authorization: `Bearer ${TOKEN} extra` },
    ];
    for (const headers of attempts) {
      for (const path of ['/decode', '/encode']) {
        const reply = await request(`${server.url}${path}`, { headers, body: encryptedBody });
        expect(reply.status).toBe(401);
        expect(reply.headers['www-authenticate']).toBe('Bearer');
        expect(JSON.parse(reply.body).error).toBe('unauthorized');
        expect(reply.body).not.toContain(SECRET_TEXT);
        expect(reply.body).not.toContain(plainBase64.slice(0, 16));
        expect(reply.body).not.toContain(TOKEN);
      }
    }
    // The scheme is case-insensitive, as HTTP says.
    const lower = await request(`${server.url}/decode`, { headers: { Authorization: `bearer ${TOKEN}` }, body: encryptedBody });
    expect(lower.status).toBe(200);
  });

  it('answers the CORS preflight for an allowed UI origin', async () => {
    const reply = await request(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { Origin: UI_ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type,x-namespace' },
    });
    expect(reply.status).toBe(204);
    expect(reply.headers['access-control-allow-origin']).toBe(UI_ORIGIN);
    expect(reply.headers['access-control-allow-credentials']).toBe('true');
    expect(reply.headers['access-control-allow-methods']).toContain('POST');
    const allowed = String(reply.headers['access-control-allow-headers']).toLowerCase().split(/\s*,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'x-namespace']));
    expect(reply.headers.vary).toContain('Origin');

    const post = await request(`${server.url}/decode`, { headers: { ...auth(), Origin: UI_ORIGIN }, body: encryptedBody });
    expect(post.status).toBe(200);
    expect(post.headers['access-control-allow-origin']).toBe(UI_ORIGIN);
  });

  it('refuses other origins, preflight and request alike, without CORS headers', async () => {
    for (const origin of ['http://evil.example', 'http://localhost:8234', 'null']) {
      const preflight = await request(`${server.url}/decode`, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' } });
      expect(preflight.status).toBe(403);
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      const post = await request(`${server.url}/decode`, { headers: { ...auth(), Origin: origin }, body: encryptedBody });
      expect(post.status).toBe(403);
      expect(post.headers['access-control-allow-origin']).toBeUndefined();
      expect(post.body).not.toContain(SECRET_TEXT);
    }
  });

  it('caps the body size with 413, declared or streamed', async () => {
    const big = JSON.stringify({ payloads: [{ metadata: {}, data: Buffer.alloc(MAX_BODY).toString('base64') }] });
    const declared = await request(`${server.url}/decode`, { headers: auth(), body: big });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body).error).toBe('body_too_large');
    const streamed = await request(`${server.url}/decode`, { headers: auth(), body: big, chunked: true });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).error).toBe('body_too_large');
    // The server still serves afterwards.
    expect((await request(`${server.url}/decode`, { headers: auth(), body: encryptedBody })).status).toBe(200);
  });

  it('answers bad input with JSON errors and no stack traces', async () => {
    const cases: Array<{ path?: string; method?: string; body?: string; status: number; error: string }> = [
      { body: '{not json', status: 400, error: 'invalid_json' },
      { body: '{"payload": []}', status: 400, error: 'invalid_payloads' },
      { body: '{"payloads": [{"metadata": {"encoding": "binary encrypted!"}, "data": ""}]}', status: 400, error: 'invalid_payloads' },
      { body: '{"payloads": [{"metadata": [], "data": ""}]}', status: 400, error: 'invalid_payloads' },
      { body: '{"payloads": [42]}', status: 400, error: 'invalid_payloads' },
      { body: '{"payloads": [{"metadata": {}, "data": 12}]}', status: 400, error: 'invalid_payloads' },
      { path: '/status', body: '{}', status: 404, error: 'not_found' },
      { method: 'GET', status: 405, error: 'method_not_allowed' },
    ];
    for (const c of cases) {
      const reply = await request(`${server.url}${c.path ?? '/decode'}`, { method: c.method, headers: auth(), body: c.body });
      expect(reply.status, JSON.stringify(c)).toBe(c.status);
      expect(JSON.parse(reply.body).error).toBe(c.error);
      expect(reply.body).not.toMatch(/\bat .*\.(ts|js):\d+/);
    }
  });

  it('reports a payload under a key it does not hold as 400 naming the key id only', async () => {
    const onlyK2 = await startCodecServer({ keys: ring('k2'), authToken: TOKEN });
    try {
      const reply = await request(`${onlyK2.url}/decode`, { headers: auth(), body: encryptedBody });
      expect(reply.status).toBe(400);
      const body = JSON.parse(reply.body);
      expect(body.error).toBe('unknown_key');
      expect(body.detail).toContain('"k1"');
      expect(reply.body).not.toContain(keyBytes.get('k1')!.toString('base64'));
      expect(reply.body).not.toContain(keyBytes.get('k2')!.toString('base64'));
      expect(reply.body).not.toContain(SECRET_TEXT);
      // Tampered data: authentication fails, reported the same way.
      const tampered = JSON.parse(encryptedBody);
      const data = Buffer.from(tampered.payloads[0].data, 'base64');
      data[data.length - 1] ^= 1;
      tampered.payloads[0].data = data.toString('base64');
      const tamperReply = await request(`${server.url}/decode`, { headers: auth(), body: JSON.stringify(tampered) });
      expect(tamperReply.status).toBe(400);
      expect(JSON.parse(tamperReply.body).error).toBe('authentication_failed');
    } finally {
      await onlyK2.close();
    }
  });

  it('loads under plain Node ESM through tsx, as the CLI runs it (CommonJS interop of @temporalio/proto)', () => {
    const script = `const m = await import(${JSON.stringify(pathToFileURL(path.join(REPO_ROOT, 'temporal/codec-server.ts')).href)});
      const s = await m.startCodecServer({ keys: { activeKeyId: 'k', keys: new Map([['k', new Uint8Array(32)]]) }, authToken: 't' });
      const r = await fetch(s.url + '/encode', { method: 'POST', headers: { Authorization: 'Bearer t' }, body: '{"payloads":[{"metadata":{},"data":"aGk="}]}' });
      console.log(r.status); await s.close();`;
    const run = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin/run-ts.js'), writeScript(script)], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('200');
  });

  it('lets a local UI decode through its capability path without a token, and nothing else', async () => {
    const secretPath = randomBytes(16).toString('hex');
    const dev = await startCodecServer({ keys: ring('k2', 'k1'), authToken: TOKEN, pathSecret: secretPath });
    try {
      const json = { 'Content-Type': 'application/json' };
      const ok = await request(`${dev.url}/${secretPath}/decode`, { headers: json, body: encryptedBody });
      expect(ok.status).toBe(200);
      expect(fromJson(JSON.parse(ok.body)).map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([{ desired: { name: SECRET_TEXT } }, 7]);
      for (const wrong of [`/${secretPath.slice(1)}/decode`, '/decode', `/x${secretPath}/decode`]) {
        const refused = await request(`${dev.url}${wrong}`, { headers: json, body: encryptedBody });
        expect(refused.status).toBe(401);
        expect(refused.body).not.toContain(SECRET_TEXT);
      }
    } finally {
      await dev.close();
    }
  });

  it('requires an auth token to start', async () => {
    await expect(startCodecServer({ keys: ring('k1'), authToken: '' })).rejects.toThrow(/auth token/);
  });
});
