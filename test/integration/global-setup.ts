import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startTemporalDevServer, type RunningDevServer } from '../../dev/temporal-dev-server';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalDbFile: string;
  }
}

let server: RunningDevServer | undefined;
let dir: string | undefined;

/** One real Temporal dev server (SQLite in a temp dir, studyflow's search attributes) for the integration run. */
export async function setup(project: TestProject): Promise<void> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-temporal-'));
  server = await startTemporalDevServer({
    dbFile: path.join(dir, 'temporal.sqlite'),
    uiPort: false,
    stopWithParent: true,
  });
  project.provide('temporalAddress', server.address);
  project.provide('temporalDbFile', server.dbFile);
}

export async function teardown(): Promise<void> {
  await server?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
