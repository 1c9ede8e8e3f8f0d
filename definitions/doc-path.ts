export type DocPath = (string | number)[];

/** `target_groups.us.profiles[0].name` */
export function formatPath(docPath: readonly (string | number)[]): string {
  let out = '';
  for (const seg of docPath) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out || '(file)';
}

/** A stable string key of a path, for sets and maps. */
export function pathKey(docPath: readonly (string | number)[]): string {
  return JSON.stringify(docPath);
}

/** Whether `inner` equals `outer` or lies inside it. */
export function isWithin(inner: readonly (string | number)[], outer: readonly (string | number)[]): boolean {
  return outer.length <= inner.length && outer.every((seg, i) => String(seg) === String(inner[i]));
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at a path of plain data, or undefined. */
export function valueAt(data: unknown, docPath: readonly (string | number)[]): unknown {
  let node = data;
  for (const seg of docPath) {
    if (Array.isArray(node) && typeof seg === 'number') node = node[seg];
    else if (isPlainObject(node)) node = Object.hasOwn(node, seg) ? node[seg] : undefined;
    else return undefined;
  }
  return node;
}
