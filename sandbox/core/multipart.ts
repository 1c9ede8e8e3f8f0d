// A small multipart/form-data parser over an already size-capped body.

export interface MultipartPart {
  name: string;
  filename: string | null;
  contentType: string | null;
  data: Buffer;
}

export interface MultipartForm {
  parts: MultipartPart[];
  get(name: string): MultipartPart | undefined;
}

export class MultipartError extends Error {}

/** Extracts the boundary from a Content-Type header, or null when it is not multipart/form-data. */
export function multipartBoundary(contentType: string | undefined): string | null {
  if (!contentType) return null;
  const [type, ...params] = contentType.split(';').map((s) => s.trim());
  if (type.toLowerCase() !== 'multipart/form-data') return null;
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    if (p.slice(0, eq).trim().toLowerCase() !== 'boundary') continue;
    let value = p.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    return value.length > 0 && value.length <= 70 ? value : null;
  }
  return null;
}

export function parseMultipart(body: Buffer, boundary: string): MultipartForm {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: MultipartPart[] = [];
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw new MultipartError('the body does not contain the multipart boundary');
  for (;;) {
    pos += delimiter.length;
    if (body.subarray(pos, pos + 2).toString('latin1') === '--') break;
    if (body.subarray(pos, pos + 2).toString('latin1') !== '\r\n') throw new MultipartError('malformed boundary line');
    pos += 2;
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    if (headerEnd < 0) throw new MultipartError('a part has no header terminator');
    const headers = parseHeaders(body.subarray(pos, headerEnd).toString('utf8'));
    const dataStart = headerEnd + 4;
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), dataStart);
    if (next < 0) throw new MultipartError('the closing boundary is missing');
    const disposition = headers.get('content-disposition');
    if (!disposition) throw new MultipartError('a part has no Content-Disposition');
    const name = dispositionParam(disposition, 'name');
    if (name === null) throw new MultipartError('a part has no name');
    parts.push({
      name,
      filename: dispositionParam(disposition, 'filename'),
      contentType: headers.get('content-type') ?? null,
      data: body.subarray(dataStart, next),
    });
    pos = next + 2;
  }
  return { parts, get: (n) => parts.find((p) => p.name === n) };
}

function parseHeaders(block: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MultipartError('malformed part header');
    map.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return map;
}

function dispositionParam(disposition: string, param: string): string | null {
  const re = new RegExp(`(?:^|;)\\s*${param}="([^"]*)"|(?:^|;)\\s*${param}=([^;\\s]+)`, 'i');
  const m = re.exec(disposition);
  if (!m) return null;
  return m[1] ?? m[2] ?? null;
}
