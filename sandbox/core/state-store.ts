// The in-memory state, optionally mirrored to a JSON file (write-then-rename after every commit).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { SandboxStateData, Sequenced } from './state-records';

export function emptyState(tokenSigningKey = randomBytes(32).toString('hex')): SandboxStateData {
  return {
    format: 1,
    sequence: 0,
    token_signing_key: tokenSigningKey,
    projects: {},
    target_groups: {},
    id_exclusion_lists: {},
    recontact_respondents: {},
    exclusion_groups: {},
    jobs: {},
    fielding_runs: {},
    idempotency: {},
    slices: {},
  };
}

export class StateStore {
  data: SandboxStateData;
  private readonly stateFile: string | undefined;

  constructor(stateFile?: string) {
    this.stateFile = stateFile;
    this.data = stateFile && existsSync(stateFile) ? loadStateFile(stateFile) : emptyState();
  }

  /** Next creation sequence number (for list ordering and cursors). */
  nextSeq(): number {
    this.data.sequence += 1;
    return this.data.sequence;
  }

  /** Stamps a new record with its sequence number. */
  sequenced<T extends object>(record: T): T & Sequenced {
    return { ...record, seq: this.nextSeq() };
  }

  /**
   * Named state of another module (part 2): created with `init()` on first use, persisted with the rest.
   * Mutate the returned object in place after validation; the server persists after every committed write.
   */
  slice<T>(name: string, init: () => T): T {
    if (!(name in this.data.slices)) this.data.slices[name] = init();
    return this.data.slices[name] as T;
  }

  /** Everything back to empty, keeping the token signing key. */
  reset(): void {
    this.data = emptyState(this.data.token_signing_key);
    this.persist();
  }

  /** Writes the state file atomically (temp file, then rename). No-op without a state file. */
  persist(): void {
    if (!this.stateFile) return;
    const tmp = `${this.stateFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.data));
    renameSync(tmp, this.stateFile);
  }

  /** A deep copy for callers that must not mutate (tests, /_sandbox/state). */
  snapshot(): SandboxStateData {
    return structuredClone(this.data);
  }
}

function loadStateFile(file: string): SandboxStateData {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`sandbox state file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const data = parsed as Partial<SandboxStateData>;
  if (!data || typeof data !== 'object' || data.format !== 1 || typeof data.token_signing_key !== 'string') {
    throw new Error(`sandbox state file ${file} is not a studyflow sandbox state (format 1)`);
  }
  return { ...emptyState(data.token_signing_key), ...data } as SandboxStateData;
}
