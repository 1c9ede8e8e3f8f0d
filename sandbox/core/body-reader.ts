// Reads a request body up to a byte cap. Above the cap it stops collecting and reports `tooLarge`
// (the server answers 413 and closes the connection), so memory stays bounded.
import type { IncomingMessage } from 'node:http';

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;
export const MULTIPART_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

export type BodyReadResult = { tooLarge: false; body: Buffer } | { tooLarge: true };

export function readBody(req: IncomingMessage, limitBytes: number): Promise<BodyReadResult> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limitBytes) {
      req.resume();
      resolve({ tooLarge: true });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limitBytes) {
        over = true;
        chunks.length = 0;
        resolve({ tooLarge: true });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) resolve({ tooLarge: false, body: Buffer.concat(chunks) });
    });
    req.on('error', (err) => {
      if (!over) reject(err);
    });
  });
}
