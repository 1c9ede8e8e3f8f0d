// CSV on the wire, streamed both ways: a file to submit (text/csv, rows produced as they go, sent chunked) and a
// file answered (a download read record by record). Neither side holds the file as one string.
import { ApplicationFailure } from '@temporalio/common';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { invalidInputFailure } from '../http/errors';
import type { StreamingBody } from '../http/multipart-body';

type Source<T> = AsyncIterable<T> | Iterable<T>;
type Opener<T> = Source<T> | Readable | (() => Source<T> | Readable);

/**
 * A CSV file to send. `lines`: its rows, one a string without a line end (the client ends each with `\n`);
 * `bytes`: the file as stored, rows already ended (e.g. a blob store's Readable). A function is opened again for a
 * replay (after a token refresh); a stream or iterable given as is can be sent once, and a replay of it fails
 * retryably as {@link REQUEST_BODY_SPENT} (the activity's retry opens it again from its source, same Idempotency-Key).
 */
export type CsvFile = { lines: Opener<string> } | { bytes: Opener<Uint8Array | string> };

/** Failure `type` of a one-shot body asked to be sent twice; retryable (the next attempt brings a fresh source). */
export const REQUEST_BODY_SPENT = 'request_body_spent';

export interface CsvBodyOptions {
  /** The activity or function named in an input failure. */
  activity: string;
  /** Most rows the file may hold (the API's limit); more is a non-retryable input failure. */
  maxRows: number;
  /** Checks each row (without its line end); returns a problem, or undefined when the row is fine. */
  checkRow?: (row: string, index: number) => string | undefined;
}

const encoder = new TextEncoder();

/** The file as a streamed `text/csv` body (no Content-Length: sent chunked), rows checked and counted as they go. */
export function csvRequestBody(file: CsvFile, options: CsvBodyOptions): StreamingBody {
  const opener: Opener<unknown> = 'lines' in file ? file.lines : file.bytes;
  let opened = false;
  const open = (): Source<unknown> => {
    if (typeof opener === 'function') return opener();
    if (opened) {
      throw ApplicationFailure.create({
        message: `${options.activity}: the file was streamed once already and cannot be sent again; a retry opens it again`,
        type: REQUEST_BODY_SPENT,
        nonRetryable: false,
      });
    }
    opened = true;
    return opener;
  };
  return {
    contentType: 'text/csv',
    open: () => ('lines' in file ? linesOut(open() as Source<string>, options) : bytesOut(open() as Source<Uint8Array | string>, options)),
  };
}

async function* linesOut(lines: Source<string>, options: CsvBodyOptions): AsyncGenerator<Uint8Array> {
  let index = 0;
  let batch = '';
  for await (const line of lines) {
    if (typeof line !== 'string' || /[\r\n]/.test(line)) throw invalidInputFailure(options.activity, `row ${index + 1} is not one line of text`);
    checkRow(line, index, options);
    index += 1;
    batch += `${line}\n`;
    if (batch.length >= 64 * 1024) {
      yield encoder.encode(batch);
      batch = '';
    }
  }
  if (index === 0) throw invalidInputFailure(options.activity, 'the file has no rows');
  if (batch) yield encoder.encode(batch);
}

async function* bytesOut(bytes: Source<Uint8Array | string>, options: CsvBodyOptions): AsyncGenerator<Uint8Array> {
  const decoder = new StringDecoder('utf8');
  let index = 0;
  let partial = '';
  for await (const chunk of bytes) {
    const data = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
    const text = partial + decoder.write(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    const rows = text.split('\n');
    partial = rows.pop()!;
    for (const row of rows) checkRow(row.replace(/\r$/, ''), index++, options);
    yield data;
  }
  const last = partial + decoder.end();
  if (last !== '') checkRow(last.replace(/\r$/, ''), index++, options);
  if (index === 0) throw invalidInputFailure(options.activity, 'the file has no rows');
}

function checkRow(row: string, index: number, options: CsvBodyOptions): void {
  if (index >= options.maxRows) throw invalidInputFailure(options.activity, `the file has more than ${options.maxRows} rows (the API's limit; send it in chunks)`);
  const problem = options.checkRow?.(row, index);
  if (problem) throw invalidInputFailure(options.activity, `row ${index + 1}: ${problem}`);
}

/**
 * The records of a CSV stream, one array of fields each, as they arrive (RFC 4180: fields in double quotes may
 * hold commas, quotes doubled and line breaks; rows end with LF or CRLF). Empty lines are skipped.
 */
export async function* csvRecords(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  let fields: string[] = [];
  let field = '';
  let recordStarted = false;
  /** The field has a character (or an opening quote): a quote now is data, not an opening one. */
  let fieldHasContent = false;
  let quoted = false;
  /** Inside a quoted field, the last character was a quote (its end, or the first of a doubled one). */
  let quoteSeen = false;
  const endRecord = function* (): Generator<string[]> {
    if (recordStarted) {
      fields.push(field.endsWith('\r') ? field.slice(0, -1) : field);
      yield fields;
    }
    fields = [];
    field = '';
    recordStarted = false;
    fieldHasContent = false;
  };
  const feed = function* (text: string): Generator<string[]> {
    for (const ch of text) {
      if (quoted) {
        if (!quoteSeen) {
          if (ch === '"') quoteSeen = true;
          else field += ch;
          continue;
        }
        quoteSeen = false;
        if (ch === '"') {
          field += '"';
          continue;
        }
        quoted = false;
      }
      if (ch === '"' && !fieldHasContent) {
        quoted = true;
        fieldHasContent = true;
        recordStarted = true;
      } else if (ch === ',') {
        fields.push(field);
        field = '';
        fieldHasContent = false;
        recordStarted = true;
      } else if (ch === '\n') {
        yield* endRecord();
      } else {
        field += ch;
        fieldHasContent = true;
        recordStarted = true;
      }
    }
  };
  for await (const chunk of source) yield* feed(typeof chunk === 'string' ? chunk : decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
  yield* feed(decoder.end());
  if (quoted && !quoteSeen) throw new Error('the CSV ends inside a quoted field');
  yield* endRecord();
}
