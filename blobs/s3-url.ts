// `s3://bucket/prefix` URLs, without the AWS SDK: a command that only names the store (and the lazy store
// of blob-store-env.ts) parses them without loading the SDK.
import { BlobStoreError, checkObjectName } from './blob-store';

/** Where an `s3://bucket/prefix` URL points. */
export interface S3Location {
  bucket: string;
  /** Key prefix without leading or trailing `/` ("" for the bucket's root). */
  prefix: string;
}

/** Parses `s3://bucket[/prefix]`; throws a named error for anything else. */
export function parseS3Url(url: string): S3Location {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(\/.*)?$/.exec(url.trim());
  if (!match) {
    throw new BlobStoreError('invalid_name', `STUDYFLOW_BLOB_URL must look like s3://bucket/prefix (bucket: 3-63 of a-z 0-9 . -), got "${url.slice(0, 80)}"`);
  }
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix !== '') checkObjectName(prefix);
  return { bucket: match[1], prefix };
}

/** The canonical URL of a location, as messages show it. */
export function s3UrlOf(location: S3Location): string {
  return `s3://${location.bucket}${location.prefix ? `/${location.prefix}` : ''}`;
}
