// The request log behind GET /_sandbox/requests. Never holds tokens, bodies or query strings.
import type { ApiVersion } from './versioning';

export interface RequestLogEntry {
  method: string;
  path: string;
  /** The matched route template, or null when no route matched. */
  route: string | null;
  status: number;
  api_version: ApiVersion | string | null;
  idempotency_key_present: boolean;
  /** True when the response was dropped after commit (fault injection). */
  dropped: boolean;
  time: string;
  duration_ms: number;
}

export class RequestLog {
  private entries: RequestLogEntry[] = [];
  constructor(private readonly capacity = 10_000) {}

  add(entry: RequestLogEntry): void {
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }

  list(): RequestLogEntry[] {
    return this.entries.map((e) => ({ ...e }));
  }

  clear(): void {
    this.entries = [];
  }
}
