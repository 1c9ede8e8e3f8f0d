// Codec keys from the environment: list and key-file forms, rotation order, named errors that never
// carry key material, and the key-file permission warning.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CodecKeyError,
  generateCodecKey,
  loadCodecKeys,
  parseCodecKeyFile,
  writeCodecKeyFile,
  type CodecKeyErrorCode,
} from '../../temporal/codec-keys';

const k1 = randomBytes(32).toString('base64');
const k2 = randomBytes(32).toString('base64');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-codec-keys-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function keyError(load: () => unknown): CodecKeyError {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(CodecKeyError);
    return error as CodecKeyError;
  }
  throw new Error('expected a CodecKeyError');
}

/** Neither the message nor anything printed about the error may contain the secret text. */
function expectNoSecret(error: CodecKeyError, ...secrets: string[]): void {
  const printed = `${error.message}\n${inspect(error)}\n${JSON.stringify(error)}`;
  for (const secret of secrets) {
    expect(printed).not.toContain(secret);
    expect(printed).not.toContain(Buffer.from(secret, 'base64').toString('hex'));
  }
}

function writeFile(name: string, content: string, mode = 0o600): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content, { mode });
  fs.chmodSync(file, mode);
  return file;
}

describe('loadCodecKeys', () => {
  it('returns undefined when nothing is configured', () => {
    expect(loadCodecKeys({})).toBeUndefined();
    expect(loadCodecKeys({ STUDYFLOW_CODEC_KEYS: '  ' })).toBeUndefined();
  });

  it('reads keyId:base64 pairs; the first is active and all are held', () => {
    const loaded = loadCodecKeys({ STUDYFLOW_CODEC_KEYS: ` k2:${k2} , k1:${k1} ` });
    expect(loaded?.activeKeyId).toBe('k2');
    expect([...loaded!.keys.keys()]).toEqual(['k2', 'k1']);
    expect(Buffer.from(loaded!.keys.get('k1')!).toString('base64')).toBe(k1);
    expect(loaded?.warnings).toEqual([]);
    expect(loaded?.source).toBe('STUDYFLOW_CODEC_KEYS');
  });

  it('reads a key file with an explicit active key', () => {
    const file = writeFile('keys.json', JSON.stringify({ active: 'k1', keys: { k1, k2 } }));
    const loaded = loadCodecKeys({ STUDYFLOW_CODEC_KEY_FILE: file });
    expect(loaded?.activeKeyId).toBe('k1');
    expect([...loaded!.keys.keys()].sort()).toEqual(['k1', 'k2']);
    expect(loaded?.warnings).toEqual([]);
  });

  it.skipIf(process.platform === 'win32')('warns (without key material) when the key file is readable by others', () => {
    const file = writeFile('open-keys.json', JSON.stringify({ active: 'k1', keys: { k1 } }), 0o644);
    const loaded = loadCodecKeys({ STUDYFLOW_CODEC_KEY_FILE: file });
    expect(loaded?.warnings).toHaveLength(1);
    expect(loaded?.warnings[0]).toContain('0644');
    expect(loaded?.warnings[0]).toContain(file);
    expect(loaded?.warnings[0]).not.toContain(k1);
    const groupOnly = writeFile('group-keys.json', JSON.stringify({ active: 'k1', keys: { k1 } }), 0o640);
    expect(loadCodecKeys({ STUDYFLOW_CODEC_KEY_FILE: groupOnly })?.warnings).toHaveLength(1);
  });

  it('refuses both sources at once', () => {
    const file = writeFile('both.json', JSON.stringify({ active: 'k1', keys: { k1 } }));
    expect(keyError(() => loadCodecKeys({ STUDYFLOW_CODEC_KEYS: `k1:${k1}`, STUDYFLOW_CODEC_KEY_FILE: file })).code).toBe('conflicting_sources');
  });
});

describe('key errors are named, located and free of key material', () => {
  const short = randomBytes(16).toString('base64');
  const cases: Array<{ name: string; env: string; code: CodecKeyErrorCode; secrets: string[]; mentions?: string }> = [
    { name: 'a 16-byte key', env: `k1:${short}`, code: 'invalid_key_length', secrets: [short], mentions: '16 bytes' },
    { name: 'a 33-byte key', env: `k1:${randomBytes(33).toString('base64')}`, code: 'invalid_key_length', secrets: [], mentions: '33 bytes' },
    { name: 'bad base64', env: `k1:${k1.slice(0, 20)}!!${k1.slice(22)}`, code: 'invalid_base64', secrets: [k1.slice(0, 20)] },
    { name: 'non-canonical base64', env: `k1:${k1.replace(/=$/, '')}`, code: 'invalid_base64', secrets: [k1.slice(0, 40)] },
    { name: 'a duplicate id', env: `k1:${k1},k1:${k2}`, code: 'duplicate_key_id', secrets: [k1, k2], mentions: '"k1"' },
    { name: 'a bare key without id', env: k1, code: 'invalid_entry', secrets: [k1], mentions: 'entry 2' },
    { name: 'a key in the id position', env: `${k1}:${k2}`, code: 'invalid_key_id', secrets: [k1, k2] },
  ];
  for (const c of cases) {
    it(`${c.name} -> ${c.code}`, () => {
      const error = keyError(() => loadCodecKeys({ STUDYFLOW_CODEC_KEYS: `k0:${k2},${c.env}` }));
      expect(error.code).toBe(c.code);
      expect(error.name).toBe('CodecKeyError');
      expect(error.message).toContain('STUDYFLOW_CODEC_KEYS');
      if (c.mentions) expect(error.message).toContain(c.mentions);
      expectNoSecret(error, k2, ...c.secrets);
    });
  }

  it('key file: active id missing, invalid JSON, unreadable file', () => {
    const missing = writeFile('missing-active.json', JSON.stringify({ active: 'k9', keys: { k1 } }));
    const e1 = keyError(() => loadCodecKeys({ STUDYFLOW_CODEC_KEY_FILE: missing }));
    expect(e1.code).toBe('active_key_missing');
    expect(e1.message).toContain('"k9"');
    expect(e1.message).toContain(missing);
    expectNoSecret(e1, k1);

    // JSON.parse messages quote the input; the error must not.
    const broken = writeFile('broken.json', `{"active": "k1", "keys": {"k1": "${k1}",}}`);
    const e2 = keyError(() => loadCodecKeys({ STUDYFLOW_CODEC_KEY_FILE: broken }));
    expect(e2.code).toBe('invalid_key_file');
    expectNoSecret(e2, k1);

    const e3 = keyError(() => loadCodecKeys({ STUDYFLOW_CODEC_KEY_FILE: path.join(dir, 'nope.json') }));
    expect(e3.code).toBe('key_file_unreadable');
    expect(e3.message).toContain('ENOENT');
  });

  it('key file: wrong shapes and bad keys', () => {
    expect(keyError(() => parseCodecKeyFile('[]', 'f.json')).code).toBe('invalid_key_file');
    expect(keyError(() => parseCodecKeyFile(JSON.stringify({ keys: { k1 } }), 'f.json')).code).toBe('invalid_key_file');
    expect(keyError(() => parseCodecKeyFile(JSON.stringify({ active: 'k1', keys: {} }), 'f.json')).code).toBe('no_keys');
    expect(keyError(() => parseCodecKeyFile(JSON.stringify({ active: 'k1', keys: { k1: 42 } }), 'f.json')).code).toBe('invalid_base64');
    const short = randomBytes(24).toString('base64');
    const error = keyError(() => parseCodecKeyFile(JSON.stringify({ active: 'k1', keys: { k1: short } }), 'f.json'));
    expect(error.code).toBe('invalid_key_length');
    expect(error.message).toContain('f.json');
    expectNoSecret(error, short);
  });
});

describe('generateCodecKey and writeCodecKeyFile', () => {
  it('generates distinct 32-byte keys with valid ids that load back', () => {
    const a = generateCodecKey(new Date('2025-03-01T00:00:00Z'));
    const b = generateCodecKey();
    expect(a.keyId).toMatch(/^k20250301-[0-9a-f]{6}$/);
    expect(a.base64).not.toBe(b.base64);
    expect(Buffer.from(a.base64, 'base64')).toHaveLength(32);
    const loaded = loadCodecKeys({ STUDYFLOW_CODEC_KEYS: `${a.keyId}:${a.base64}` });
    expect(loaded?.activeKeyId).toBe(a.keyId);
  });

  it.skipIf(process.platform === 'win32')('writes an owner-only key file that loads without warnings and is never overwritten', () => {
    const key = generateCodecKey();
    const file = path.join(dir, 'nested', 'codec-keys.json');
    writeCodecKeyFile(file, key);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const loaded = loadCodecKeys({ STUDYFLOW_CODEC_KEY_FILE: file });
    expect(loaded?.activeKeyId).toBe(key.keyId);
    expect(loaded?.warnings).toEqual([]);
    expect(() => writeCodecKeyFile(file, generateCodecKey())).toThrow(/EEXIST/);
    expect(loadCodecKeys({ STUDYFLOW_CODEC_KEY_FILE: file })?.activeKeyId).toBe(key.keyId);
  });
});
