import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The variable holding the payload keys (`keyId:base64,…`). */
export const CODEC_KEYS_ENV = 'STUDYFLOW_CODEC_KEYS';
/** The variable naming a JSON file of payload keys. */
export const CODEC_KEY_FILE_ENV = 'STUDYFLOW_CODEC_KEY_FILE';

/** AES-256 key length in bytes. */
export const CODEC_KEY_BYTES = 32;

const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64_PATTERN = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The keys the payload codec holds: the active key encrypts, every key (the active one included)
 * decrypts. Rotation: make a new key active, keep the old one until no history needs it.
 */
export interface CodecKeys {
  /** Id of the key new payloads are encrypted with; written into each payload's metadata. */
  activeKeyId: string;
  /** All keys by id, 32 bytes each. */
  keys: ReadonlyMap<string, Uint8Array>;
}

/** Keys as loaded from the environment, with warnings for the caller to show (never key material). */
export interface LoadedCodecKeys extends CodecKeys {
  /** Where the keys came from: the variable name or the key file path. */
  source: string;
  /** E.g. a key file readable by group or others. */
  warnings: string[];
}

export type CodecKeyErrorCode =
  | 'invalid_entry'
  | 'invalid_key_id'
  | 'invalid_base64'
  | 'invalid_key_length'
  | 'duplicate_key_id'
  | 'active_key_missing'
  | 'no_keys'
  | 'conflicting_sources'
  | 'key_file_unreadable'
  | 'invalid_key_file';

/** A codec key configuration problem. The message names where, never the key bytes. */
export class CodecKeyError extends Error {
  override readonly name = 'CodecKeyError';
  constructor(
    readonly code: CodecKeyErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A fresh key for `studyflow dev` or for a rotation. */
export interface GeneratedCodecKey {
  keyId: string;
  /** The 32 key bytes, standard base64. */
  base64: string;
}

/** A new random 32-byte key with a sortable id like `k20250301-3fa9c2`. */
export function generateCodecKey(now: Date = new Date()): GeneratedCodecKey {
  const day = now.toISOString().slice(0, 10).replaceAll('-', '');
  return { keyId: `k${day}-${randomBytes(3).toString('hex')}`, base64: randomBytes(CODEC_KEY_BYTES).toString('base64') };
}

/**
 * Reads the codec keys from `STUDYFLOW_CODEC_KEYS` (`keyId:base64,keyId:base64`, the first is active)
 * or `STUDYFLOW_CODEC_KEY_FILE` (JSON `{"active": "k2", "keys": {"k1": "base64", "k2": "base64"}}`).
 * Returns undefined when neither is set; throws `CodecKeyError` on any invalid input.
 */
export function loadCodecKeys(env: NodeJS.ProcessEnv | Record<string, string | undefined> = process.env): LoadedCodecKeys | undefined {
  const list = env.STUDYFLOW_CODEC_KEYS?.trim();
  const file = env.STUDYFLOW_CODEC_KEY_FILE?.trim();
  if (list && file) {
    throw new CodecKeyError('conflicting_sources', 'set only one of STUDYFLOW_CODEC_KEYS and STUDYFLOW_CODEC_KEY_FILE');
  }
  if (list) return { ...parseCodecKeyList(list), source: 'STUDYFLOW_CODEC_KEYS', warnings: [] };
  if (file) return readCodecKeyFile(file);
  return undefined;
}

/** Parses `keyId:base64[,keyId:base64…]`; the first entry is the active key. */
export function parseCodecKeyList(list: string, where = 'STUDYFLOW_CODEC_KEYS'): CodecKeys {
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new CodecKeyError('no_keys', `${where} holds no keys`);
  const keys = new Map<string, Uint8Array>();
  entries.forEach((entry, index) => {
    const colon = entry.indexOf(':');
    // Without a colon the entry may be a bare key: say nothing about its content.
    if (colon <= 0) throw new CodecKeyError('invalid_entry', `${where} entry ${index + 1} is not "keyId:base64key"`);
    const keyId = entry.slice(0, colon).trim();
    addKey(keys, keyId, entry.slice(colon + 1).trim(), `${where} entry ${index + 1}`);
  });
  return { activeKeyId: keys.keys().next().value as string, keys };
}

/** Parses the key file's JSON text (see `loadCodecKeys`). */
export function parseCodecKeyFile(text: string, where: string): CodecKeys {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // JSON.parse messages quote the input: keep them out.
    throw new CodecKeyError('invalid_key_file', `${where}: not valid JSON`);
  }
  if (!isRecord(parsed) || !isRecord(parsed.keys)) {
    throw new CodecKeyError('invalid_key_file', `${where}: expected {"active": "<keyId>", "keys": {"<keyId>": "<base64>"}}`);
  }
  if (typeof parsed.active !== 'string' || parsed.active === '') {
    throw new CodecKeyError('invalid_key_file', `${where}: "active" must name a key id`);
  }
  const keys = new Map<string, Uint8Array>();
  for (const [keyId, value] of Object.entries(parsed.keys)) {
    if (typeof value !== 'string') {
      throw new CodecKeyError('invalid_base64', `${where}: key ${describeKeyId(keyId)} must be a base64 string`);
    }
    addKey(keys, keyId, value.trim(), `${where}: keys`);
  }
  if (keys.size === 0) throw new CodecKeyError('no_keys', `${where} holds no keys`);
  if (!keys.has(parsed.active)) {
    throw new CodecKeyError('active_key_missing', `${where}: active key ${describeKeyId(parsed.active)} is not among the keys`);
  }
  return { activeKeyId: parsed.active, keys };
}

/** Reads and checks a key file; warns when group or others may read it. */
export function readCodecKeyFile(file: string): LoadedCodecKeys {
  const resolved = path.resolve(file);
  let text: string;
  let mode: number;
  try {
    mode = fs.statSync(resolved).mode;
    text = fs.readFileSync(resolved, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new CodecKeyError('key_file_unreadable', `${resolved}: cannot read the codec key file (${code})`);
  }
  const warnings: string[] = [];
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    warnings.push(`${resolved}: codec key file has mode ${octal}, readable beyond its owner; run chmod 600 on it`);
  }
  return { ...parseCodecKeyFile(text, resolved), source: resolved, warnings };
}

/** Writes a key file holding one active key, readable by the owner only; refuses to overwrite. */
export function writeCodecKeyFile(file: string, key: GeneratedCodecKey): void {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const content = `${JSON.stringify({ active: key.keyId, keys: { [key.keyId]: key.base64 } }, null, 2)}\n`;
  fs.writeFileSync(file, content, { mode: 0o600, flag: 'wx' });
}

function addKey(keys: Map<string, Uint8Array>, keyId: string, base64: string, where: string): void {
  if (!KEY_ID_PATTERN.test(keyId)) {
    // An id that breaks the pattern may be pasted key material: do not echo it.
    throw new CodecKeyError('invalid_key_id', `${where}: key ids are 1-64 characters of A-Z a-z 0-9 . _ -`);
  }
  if (keys.has(keyId)) throw new CodecKeyError('duplicate_key_id', `${where}: key id "${keyId}" appears twice`);
  const bytes = decodeStrictBase64(base64);
  if (!bytes) throw new CodecKeyError('invalid_base64', `${where}: key "${keyId}" is not valid base64`);
  if (bytes.length !== CODEC_KEY_BYTES) {
    throw new CodecKeyError('invalid_key_length', `${where}: key "${keyId}" is ${bytes.length} bytes; AES-256 needs ${CODEC_KEY_BYTES}`);
  }
  keys.set(keyId, bytes);
}

function decodeStrictBase64(text: string): Buffer | undefined {
  if (!BASE64_PATTERN.test(text) || text.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

function describeKeyId(keyId: string): string {
  return KEY_ID_PATTERN.test(keyId) ? `"${keyId}"` : '(invalid id)';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
