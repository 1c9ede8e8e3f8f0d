// A 100,000-ID upload to the sandbox with bounded memory: runs bench/upload-100k.ts in its own process with
// --expose-gc (the sandbox in a grandchild, so its buffering is not counted) and checks what the upload retained.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

describe('100,000-ID upload to the sandbox', () => {
  it('arrives intact while the uploading process retains far less than the file', async () => {
    const { stdout } = await run(process.execPath, ['--expose-gc', 'bin/run-ts.js', 'bench/upload-100k.ts'], {
      cwd: root,
      env: { ...process.env, STUDYFLOW_API_BASE_URL: '' },
      timeout: 120_000,
    });
    const result = JSON.parse(stdout.trim().split('\n').pop() as string);
    expect(result).toMatchObject({ ids: 100_000, job_status: 'Success', remote_digest_matches: true, gc_exposed: true });
    // Buffering the file would retain at least its size (about 3.7 MB); streaming keeps a few chunks.
    expect(result.peak_extra_retained_bytes).toBeLessThan(result.file_bytes / 2);
  }, 120_000);
});
