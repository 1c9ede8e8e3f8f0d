// Reads every page of a cursor-paginated list: `{data, has_more, next_cursor}`, query `page_size` + `start_after`.
import { heartbeatProgress } from './activity-context';
import { callApi, type ActivityApiRequest } from './api-call';
import type { DemandApiClient } from './http/demand-api-client';
import { unexpectedResponseFailure } from './http/errors';
import type { ActivityCtx } from './types';

export interface PageWalkOptions {
  pageSize: number;
  /** Stop with a failure after this many pages (a cursor that never ends is a server bug). */
  maxPages?: number;
  /** Called with each page's items; return nothing. */
  onPage: (items: unknown[]) => void;
}

/** Walks all pages of `req` (a GET), handing each page's `data` to `onPage`. Returns the number of items. */
export async function walkPages(api: DemandApiClient, ctx: ActivityCtx, req: ActivityApiRequest, options: PageWalkOptions): Promise<number> {
  const maxPages = options.maxPages ?? 10_000;
  const seen = new Set<string>();
  let cursor: string | undefined;
  let total = 0;
  for (let page = 1; ; page += 1) {
    const res = await callApi(api, ctx, { ...req, query: { ...req.query, page_size: options.pageSize, start_after: cursor } });
    const call = { method: req.method, path: req.path };
    const body = res.body;
    const data = Array.isArray(body) ? body : (body as Record<string, unknown> | undefined)?.data;
    if (!Array.isArray(data)) throw unexpectedResponseFailure(call, res.status, 'a list answer has no data array');
    options.onPage(data);
    total += data.length;
    heartbeatProgress({ page, items: total });
    if (Array.isArray(body)) return total;
    const record = body as Record<string, unknown>;
    if (record.has_more !== true) return total;
    const next = record.next_cursor;
    if (typeof next !== 'string' || next === '' || seen.has(next)) {
      throw unexpectedResponseFailure(call, res.status, 'has_more is true but next_cursor is missing or repeats');
    }
    if (page >= maxPages) throw unexpectedResponseFailure(call, res.status, `more than ${maxPages} pages`);
    seen.add(next);
    cursor = next;
  }
}

/** All items of a paginated list. */
export async function listAllPages(api: DemandApiClient, ctx: ActivityCtx, req: ActivityApiRequest, pageSize = 100): Promise<unknown[]> {
  const items: unknown[] = [];
  await walkPages(api, ctx, req, { pageSize, onPage: (page) => items.push(...page) });
  return items;
}
