// multipart/form-data with one file part, produced as a stream with a precomputed Content-Length.
import { createHash } from 'node:crypto';

/** A request body that can be opened again (a replay after a token refresh re-reads the file). */
export interface StreamingBody {
  contentType: string;
  /** Exact size in bytes; absent: sent chunked (Transfer-Encoding: chunked), for a body produced as it goes. */
  contentLength?: number;
  open(): AsyncIterable<Uint8Array>;
}

/** The one file part of a form. */
export interface MultipartFilePart {
  /** Form field name, e.g. `file`. */
  field: string;
  filename: string;
  contentType: string;
  /** Exact size of the file content in bytes. */
  size: number;
  /** Opens the content as a stream of chunks. */
  open(): AsyncIterable<Uint8Array>;
}

/**
 * A boundary derived from `seed`, so that a retried request with the same idempotency key and content
 * sends byte-identical bodies (the API compares bodies under one Idempotency-Key).
 */
export function boundaryFromSeed(seed: string): string {
  return `studyflow-${createHash('sha256').update(seed).digest('hex').slice(0, 40)}`;
}

/** Builds the streamed form; the file is never held in memory as a whole. */
export function multipartFileBody(part: MultipartFilePart, boundary: string): StreamingBody {
  if (!/^[0-9A-Za-z'()+_,\-./:=?]{1,70}$/.test(boundary)) throw new Error('invalid multipart boundary');
  const head = Buffer.from(
    `--${boundary}\r\n` +
      `Content-Disposition: form-data; name="${quote(part.field)}"; filename="${quote(part.filename)}"\r\n` +
      `Content-Type: ${part.contentType}\r\n\r\n`,
    'utf8',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: head.length + part.size + tail.length,
    open: () => frame(head, part, tail),
  };
}

async function* frame(head: Buffer, part: MultipartFilePart, tail: Buffer): AsyncGenerator<Uint8Array> {
  yield head;
  let sent = 0;
  for await (const chunk of part.open()) {
    sent += chunk.length;
    if (sent > part.size) throw new Error(`file part is larger than its declared ${part.size} bytes`);
    yield chunk;
  }
  if (sent !== part.size) throw new Error(`file part has ${sent} bytes, declared ${part.size}`);
  yield tail;
}

function quote(value: string): string {
  return value.replace(/["\\\r\n]/g, '_');
}
