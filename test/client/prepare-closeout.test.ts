// The client stores a study's close-out files in the blob store (client/prepare-studies.ts), as it stores ID lists:
// the reversals as their normalized list, which is the blob store's canonical form of it (same bytes, same SHA-256,
// more than 100,000 rows allowed), and the approved completes as an ID list; DesiredStudy.closeout references them.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore } from '../../blobs/blob-store';
import { prepareStudies } from '../../client/prepare-studies';
import { MAX_REVERSAL_ROWS, normalizedReversalChunks } from '../../definitions/reversal-file';

const example = fileURLToPath(new URL('../../examples/closeout/study.yaml', import.meta.url));
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'studyflow-prepare-closeout-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('prepare: the close-out files', () => {
  it('stores the normalized reversals and the approved list; the desired close-out references them', async () => {
    const blobDir = path.join(dir, 'blobs');
    const { prepared, diagnostics } = await prepareStudies([example], { STUDYFLOW_BLOB_DIR: blobDir });
    expect(diagnostics).toEqual([]);
    const closeout = prepared[0].desired.closeout!;
    expect(closeout.reversals).toMatchObject({ count: 6, byCode: { '11': 3, '932': 3 }, files: ['closeout/speeders.csv', 'closeout/fraud.csv'] });
    expect(closeout.reversals!.ref).toBe(`sha256:${closeout.reversals!.sha256}`);
    expect(closeout.reversals!.sha256).toBe(prepared[0].loaded.closeout!.reversals!.summary.sha256);
    const stored = await readFile(path.join(blobDir, 'sha256', closeout.reversals!.sha256), 'utf8');
    expect(stored.split('\n').slice(0, 2)).toEqual(['0f1ce179-a917-49ff-9d50-b05fc91f7bd4,11', '3b6f0c1e-2d4a-4f7b-8c9d-0e1f2a3b4c5d,11']);
    expect(createHash('sha256').update(stored).digest('hex')).toBe(closeout.reversals!.sha256);
    expect(closeout.approvedCompletes).toMatchObject({ expectTerminated: 120, tolerance: 6, list: { count: 3, file: 'closeout/approved.csv' } });
    expect(closeout).toMatchObject({ reports: ['completes', 'reconciliations-status'], deadlineWarningMs: 3 * 86_400_000 });
  });

  it('a list of 100,001 rows is stored whole, as the blob store\'s canonical form of it', async () => {
    const rows: string[] = [];
    for (let i = 100_000; i >= 0; i--) rows.push(`9C23131D-388B-4E03-97B3-${String(i).padStart(12, '0')}`);
    const file = path.join(dir, 'many.csv');
    await writeFile(file, `${rows.join('\n')}\n`);
    const { summary, chunks } = await normalizedReversalChunks([{ file, reason: '11' }]);
    const stored = await createBlobStore({ dir: path.join(dir, 'many-blobs'), maxIds: MAX_REVERSAL_ROWS }).put(chunks());
    expect([stored.count, stored.sha256]).toEqual([100_001, summary.sha256]);
  }, 60_000);
});
