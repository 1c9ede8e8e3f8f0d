// Cursor pagination: `page_size` and `start_after` in; out, the envelope of each list as the published
// reference gives it (docs/api-conventions.md): keyed by resource with `has_more` and `next_cursor`
// (projects, target groups), `{data, url, next_cursor}` without `has_more` (exclusion groups, ID lists),
// `{webhooks, has_more}` whose next page starts after the last item's id.
// The cursor is an opaque encoding of the last item's creation sequence number, so it stays valid when
// items are deleted.
import { ApiError } from './api-error';

export interface PageRequest {
  pageSize: number;
  afterSeq: number;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export const encodeCursor = (seq: number) => Buffer.from(`seq:${seq}`).toString('base64url');

export function parsePageRequest(query: URLSearchParams, opts: { max: number; default: number }): PageRequest {
  const problems: Array<{ name: string; reason: string }> = [];
  let pageSize = opts.default;
  const rawSize = query.get('page_size');
  if (rawSize !== null) {
    if (!/^[0-9]{1,7}$/.test(rawSize) || Number(rawSize) < 1 || Number(rawSize) > opts.max) {
      problems.push({ name: 'page_size', reason: `must be an integer from 1 to ${opts.max}` });
    } else pageSize = Number(rawSize);
  }
  let afterSeq = 0;
  const cursor = query.get('start_after');
  if (cursor !== null) {
    const m = /^seq:([0-9]{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!m || encodeCursor(Number(m[1])) !== cursor) problems.push({ name: 'start_after', reason: 'is not a cursor returned by this list' });
    else afterSeq = Number(m[1]);
  }
  if (problems.length > 0) throw new ApiError(400, 'bad_request_error', 'Invalid pagination parameters.', { invalidParams: problems });
  return { pageSize, afterSeq };
}

/** `{<key>: items, url, has_more, next_cursor}` (projects, target groups). */
export function keyedListBody<T>(key: string, page: Page<T>, url: string): Record<string, unknown> {
  return { [key]: page.data, url, has_more: page.has_more, next_cursor: page.next_cursor };
}

/** `{data, url, next_cursor?}`: no `has_more`; the cursor is absent on the last page. */
export function dataCursorBody<T>(page: Page<T>, url: string): Record<string, unknown> {
  const body: Record<string, unknown> = { data: page.data, url };
  if (page.next_cursor !== null) body.next_cursor = page.next_cursor;
  return body;
}

/** Pages items that carry `seq`; `items` need not be sorted. */
export function paginate<T extends { seq: number }, R>(items: Iterable<T>, page: PageRequest, render: (item: T) => R): Page<R> {
  const sorted = [...items].filter((i) => i.seq > page.afterSeq).sort((a, b) => a.seq - b.seq);
  const slice = sorted.slice(0, page.pageSize);
  const hasMore = sorted.length > page.pageSize;
  return { data: slice.map(render), has_more: hasMore, next_cursor: hasMore ? encodeCursor(slice[slice.length - 1].seq) : null };
}

/** Pages a plain array by position (ID lists); the cursor is the 1-based position of the last item. */
export function paginateArray<T>(items: readonly T[], page: PageRequest): Page<T> {
  const slice = items.slice(page.afterSeq, page.afterSeq + page.pageSize);
  const end = page.afterSeq + slice.length;
  const hasMore = end < items.length;
  return { data: slice, has_more: hasMore, next_cursor: hasMore ? encodeCursor(end) : null };
}
