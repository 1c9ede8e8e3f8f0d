// The blob store over S3-compatible object storage (AWS SDK v3): the same content-addressed layout as the
// local directory (`<prefix>/sha256/<hex>`), streamed both ways, so a CLI on one machine stores a list
// that workers on other machines read.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import {
  BlobStoreError,
  DEFAULT_MAX_IDS,
  canonicalChunks,
  checkObjectName,
  readIdList,
  type BlobStore,
  type SideObjects,
} from './blob-store';
import { parseS3Url, s3UrlOf } from './s3-url';

export { parseS3Url, type S3Location } from './s3-url';

/** Options of {@link createS3BlobStore}. */
export interface S3BlobStoreOptions {
  /** `s3://bucket` or `s3://bucket/some/prefix`. */
  url: string;
  /** The client; default one built by {@link s3ClientConfigFromEnv} from `env`. */
  client?: S3Client;
  /** Variables for the default client (AWS_*). Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Most IDs one list may hold. Default 100,000. */
  maxIds?: number;
  /** Longest ID accepted, in characters. Default 256. */
  maxIdLength?: number;
  /**
   * Put-if-absent with `If-None-Match: *` (S3 conditional writes). `auto` (default) uses it and, when the
   * server answers 501 NotImplemented, falls back for this store's lifetime to a HEAD before a plain PUT:
   * safe because a key is the SHA-256 of its content, so a racing writer can only write the same bytes.
   */
  conditionalPut?: 'auto' | 'never';
  /** Attempts of one PUT (a fresh stream each time) on a network error or a 5xx. Default 3. */
  putAttempts?: number;
}

/** An S3 store: its bucket, prefix and client, for tools (`--check`) that need them. */
export interface S3BlobStore extends BlobStore {
  readonly bucket: string;
  readonly prefix: string;
  readonly client: S3Client;
  /** Whether the server took `If-None-Match: *` on the last put (false after a fallback). */
  conditionalPutSupported(): boolean;
}

/**
 * The S3 client settings from the standard AWS variables: `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`
 * (a local or non-AWS server; path-style addressing then, unless `STUDYFLOW_S3_PATH_STYLE=false`),
 * `AWS_REGION` or `AWS_DEFAULT_REGION` (default us-east-1), and `AWS_ACCESS_KEY_ID` +
 * `AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`). Without keys the SDK's default chain applies
 * (profile, SSO, web identity, container or instance role).
 */
export function s3ClientConfigFromEnv(env: Record<string, string | undefined> = process.env): S3ClientConfig {
  const value = (name: string) => (env[name] ?? '').trim() || undefined;
  const endpoint = value('AWS_ENDPOINT_URL_S3') ?? value('AWS_ENDPOINT_URL');
  const pathStyle = value('STUDYFLOW_S3_PATH_STYLE');
  if (pathStyle !== undefined && pathStyle !== 'true' && pathStyle !== 'false') {
    throw new BlobStoreError('invalid_name', `STUDYFLOW_S3_PATH_STYLE must be true or false, got "${pathStyle.slice(0, 20)}"`);
  }
  const config: S3ClientConfig = {
    region: value('AWS_REGION') ?? value('AWS_DEFAULT_REGION') ?? 'us-east-1',
    forcePathStyle: pathStyle !== undefined ? pathStyle === 'true' : endpoint !== undefined,
    // Our own loop retries PUTs with a fresh stream; reads and HEADs retry in the SDK.
    maxAttempts: 3,
    // The SDK's console fallback would print on every refused streamed PUT (an expected 412 included);
    // failures reach the caller as named BlobStoreErrors instead.
    logger: SILENT_LOGGER,
  };
  if (endpoint) config.endpoint = endpoint;
  const accessKeyId = value('AWS_ACCESS_KEY_ID');
  const secretAccessKey = value('AWS_SECRET_ACCESS_KEY');
  if (accessKeyId && secretAccessKey) {
    config.credentials = { accessKeyId, secretAccessKey, sessionToken: value('AWS_SESSION_TOKEN') };
  }
  return config;
}

const REF = /^sha256:([0-9a-f]{64})$/;
const SILENT_LOGGER = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

export function createS3BlobStore(options: S3BlobStoreOptions): S3BlobStore {
  // The pinned SDK release supports Node 20 (package.json engines); its notice about later releases
  // needing Node 22 would otherwise be printed by every CLI run.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { bucket, prefix } = parseS3Url(options.url);
  const client = options.client ?? new S3Client(s3ClientConfigFromEnv(options.env ?? process.env));
  const maxIds = options.maxIds ?? DEFAULT_MAX_IDS;
  const maxIdLength = options.maxIdLength ?? 256;
  const putAttempts = options.putAttempts ?? 3;
  let conditional = (options.conditionalPut ?? 'auto') === 'auto';
  const location = s3UrlOf({ bucket, prefix });
  const keyOf = (name: string) => (prefix ? `${prefix}/${name}` : name);
  const blobKey = (ref: string): string => {
    const match = REF.exec(ref);
    if (!match) throw new BlobStoreError('invalid_ref', 'a blob reference has the form sha256:<64 lowercase hex digits>');
    return keyOf(`sha256/${match[1]}`);
  };

  /** Content length of a key, or undefined when there is none. */
  const head = async (key: string): Promise<number | undefined> => {
    try {
      const answer = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return answer.ContentLength ?? 0;
    } catch (error) {
      if (statusOf(error) === 404 && nameOf(error) !== 'NoSuchBucket') return undefined;
      throw storageError(error, location);
    }
  };

  /**
   * One PUT with a fresh body per attempt; true when written, false when the key already existed.
   * `ifAbsent`: put-if-absent (lists); side objects are replaced instead (a re-sealed secret).
   */
  const putOnce = async (key: string, body: () => Readable | Uint8Array, length: number, sha256: Buffer, ifAbsent: boolean): Promise<boolean> => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: body(),
            ContentLength: length,
            ContentType: 'text/plain; charset=utf-8',
            // The server checks the bytes it received against the digest: a stored object always matches its key.
            ChecksumSHA256: sha256.toString('base64'),
            ...(ifAbsent && conditional ? { IfNoneMatch: '*' } : {}),
          }),
        );
        return true;
      } catch (error) {
        const status = statusOf(error);
        if (status === 412 || nameOf(error) === 'PreconditionFailed') return false;
        // A conditional write in progress on the same key (AWS answers 409): the other writer's bytes are ours.
        if (status === 409 && nameOf(error) === 'ConditionalRequestConflict') return false;
        if (ifAbsent && conditional && (status === 501 || nameOf(error) === 'NotImplemented')) {
          conditional = false;
          if ((await head(key)) !== undefined) return false;
          attempt -= 1;
          continue;
        }
        if (attempt < putAttempts && retryable(error)) {
          await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** (attempt - 1)));
          continue;
        }
        throw storageError(error, location);
      }
    }
  };

  const objects: SideObjects = {
    async put(name, data) {
      const digest = createHash('sha256').update(data).digest();
      // Side objects are replaced (a rotated seal), so no If-None-Match here; a PUT is atomic in S3.
      await putOnce(keyOf(checkObjectName(name)), () => data, data.byteLength, digest, false);
    },
    async get(name) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(checkObjectName(name)) }));
        return answer.Body ? await answer.Body.transformToByteArray() : new Uint8Array();
      } catch (error) {
        if (nameOf(error) === 'NoSuchKey' || (statusOf(error) === 404 && nameOf(error) !== 'NoSuchBucket')) return undefined;
        throw storageError(error, location);
      }
    },
    async list(listPrefix) {
      const normalized = checkObjectName(listPrefix.endsWith('/') ? listPrefix : `${listPrefix}/`);
      const names: string[] = [];
      let token: string | undefined;
      do {
        let answer;
        try {
          answer = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: keyOf(normalized), ContinuationToken: token }));
        } catch (error) {
          throw storageError(error, location);
        }
        for (const item of answer.Contents ?? []) {
          if (item.Key) names.push(prefix ? item.Key.slice(prefix.length + 1) : item.Key);
        }
        token = answer.IsTruncated ? answer.NextContinuationToken : undefined;
      } while (token);
      return names.sort();
    },
  };

  return {
    location,
    bucket,
    prefix,
    client,
    objects,
    conditionalPutSupported: () => conditional,
    async put(source) {
      const ids = await readIdList(source, { maxIds, maxIdLength });
      // First pass: the digest and size, without keeping the bytes. Second pass (per attempt): the body.
      const hash = createHash('sha256');
      let bytes = 0;
      for (const chunk of canonicalChunks(ids)) {
        hash.update(chunk);
        bytes += chunk.length;
      }
      const digest = hash.digest();
      const sha256 = digest.toString('hex');
      const key = keyOf(`sha256/${sha256}`);
      const stored = { ref: `sha256:${sha256}`, sha256, count: ids.length, bytes };
      // Already there (the usual case on a re-apply): nothing to send.
      if ((await head(key)) === bytes) return stored;
      await putOnce(key, () => Readable.from(canonicalChunks(ids), { objectMode: false }), bytes, digest, true);
      return stored;
    },
    open(ref) {
      const key = blobKey(ref);
      return Readable.from(
        (async function* () {
          let body: Readable;
          try {
            const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
            body = answer.Body as Readable;
          } catch (error) {
            if (nameOf(error) === 'NoSuchKey' || (statusOf(error) === 404 && nameOf(error) !== 'NoSuchBucket')) {
              throw new BlobStoreError('not_found', `no stored ID list ${ref} in ${location}`);
            }
            throw storageError(error, location);
          }
          try {
            yield* body;
          } catch (error) {
            throw storageError(error, location);
          }
        })(),
        { objectMode: false },
      );
    },
    async has(ref) {
      return (await this.size(ref)) !== undefined;
    },
    async size(ref) {
      return await head(blobKey(ref));
    },
  };
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

function nameOf(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

function retryable(error: unknown): boolean {
  const status = statusOf(error);
  if (status !== undefined) return status >= 500 || status === 429;
  return !(error instanceof BlobStoreError);
}

const DENIED = new Set(['AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'ExpiredToken', 'InvalidToken', 'Forbidden', 'CredentialsProviderError']);

/**
 * A storage failure as a named BlobStoreError: the operation's outcome and the store's URL, never a
 * key, a secret or a signature (SDK messages may quote the string that was signed).
 */
export function storageError(error: unknown, location: string): BlobStoreError {
  if (error instanceof BlobStoreError) return error;
  const name = nameOf(error) ?? 'Error';
  const status = statusOf(error);
  if (DENIED.has(name) || status === 403 || status === 401) {
    return new BlobStoreError('access_denied', `${location}: the object storage refused the credential (${name}${status ? `, HTTP ${status}` : ''}); check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY and the bucket policy`);
  }
  if (name === 'NoSuchBucket') return new BlobStoreError('bucket_not_found', `${location}: the bucket does not exist`);
  const code = (error as { code?: string })?.code;
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  const detail = status !== undefined ? `HTTP ${status} ${name}` : [name, code ?? cause].filter(Boolean).join(' ');
  if (error instanceof S3ServiceException && status !== undefined && status < 500) {
    return new BlobStoreError('unavailable', `${location}: the object storage refused the request (${detail})`);
  }
  return new BlobStoreError('unavailable', `${location}: the object storage could not be reached or failed (${detail}); check AWS_ENDPOINT_URL and the network`);
}
