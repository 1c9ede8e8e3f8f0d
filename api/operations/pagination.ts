// Reads every page of a cursor-paginated list, following the list's own envelope and cursor fields as the
// reference gives them (api/wire/lists.ts): query `page_size` + `start_after`; each page is
// checked at the boundary, so a page of another shape is a named wire_mismatch failure, never an empty list.
import { pageSchema, type ListWire } from '../wire/lists';
import { readAnswer, wireMismatchFailure } from '../wire/read-answer';
import type { ApiCaller, OperationRequest } from './caller';

/** Page size of resource lists when the caller names none. */
export const DEFAULT_LIST_PAGE_SIZE = 100;

export interface PageWalkOptions<T> {
  pageSize: number;
  /** Stop with a failure after this many pages (a cursor that never ends is a server bug). */
  maxPages?: number;
  /** Called with each page's items; return nothing. */
  onPage: (items: T[]) => void;
}

/** Walks all pages of `req` (a GET), handing each page's items to `onPage`. Returns the number of items. */
export async function walkPages<T>(caller: ApiCaller, req: OperationRequest, list: ListWire<T>, options: PageWalkOptions<T>): Promise<number> {
  const maxPages = options.maxPages ?? 10_000;
  const pageSize = Math.min(options.pageSize, list.maxPageSize);
  const schema = pageSchema(list);
  const seen = new Set<string>();
  let cursor: string | undefined;
  let total = 0;
  for (let page = 1; ; page += 1) {
    const res = await caller.send({ ...req, query: { ...req.query, page_size: pageSize, start_after: cursor } });
    const call = { operation: list.operation, method: req.method, path: req.path };
    const body = readAnswer(call, schema, res) as Record<string, unknown> & { has_more?: boolean; next_cursor?: string | null };
    const items = (body[list.items] ?? []) as T[];
    options.onPage(items);
    total += items.length;
    caller.progress?.({ page, items: total });
    let next: string | undefined;
    if (list.cursor === 'next_cursor') {
      if (typeof body.next_cursor !== 'string' || body.next_cursor === '') return total;
      next = body.next_cursor;
    } else if (body.has_more !== true) {
      return total;
    } else if (list.cursor === 'has_more+next_cursor') {
      next = typeof body.next_cursor === 'string' && body.next_cursor !== '' ? body.next_cursor : undefined;
    } else {
      const last = items[items.length - 1] as { id?: unknown } | undefined;
      next = typeof last?.id === 'string' && last.id !== '' ? last.id : undefined;
    }
    if (next === undefined || seen.has(next)) {
      throw wireMismatchFailure(call, res.status, `page ${page} of ${items.length} items`, ['the list says there is more but gives no new cursor']);
    }
    if (page >= maxPages) throw wireMismatchFailure(call, res.status, `more than ${maxPages} pages`, ['the list does not end']);
    seen.add(next);
    cursor = next;
  }
}

/** All items of a paginated list. */
export async function listAllPages<T>(caller: ApiCaller, req: OperationRequest, list: ListWire<T>, pageSize = DEFAULT_LIST_PAGE_SIZE): Promise<T[]> {
  const items: T[] = [];
  await walkPages(caller, req, list, { pageSize, onPage: (page) => items.push(...page) });
  return items;
}
