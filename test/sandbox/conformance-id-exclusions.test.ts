// Spec: "Endpoints › ID-based exclusions" and "Limits" (100,000 IDs per target group).
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { paramNames } from './sandbox-test-client';

const { sb, api } = useTestSandbox({ resetBeforeEach: true, faultsBeforeEach: { job_duration_ms: 20 } });
let tgPath: string;
let X: string;
beforeEach(async () => {
  tgPath = (await api.projectWithTargetGroup()).tgPath;
  X = `${tgPath}/exclusions`;
});

const uploadPath = () => `${X}/jobs/upload-respondents-by-file`;
/** RSIDs are UUIDs (the reference): number i of a series. */
const rsid = (i: number, series = 0) => `${String(series).padStart(8, '0')}-0000-4000-8000-${String(i).padStart(12, '0')}`;
const [r1, r2, r3] = [rsid(1), rsid(2), rsid(3)];
/**
 * What a file job did (IDs added or removed) is not on the reference's wire (its job answers carry job_id,
 * status, timestamps, created_by and failure_reason only): the sandbox keeps it in the job record.
 */
const jobResult = (jobId: string) => sb.state().jobs[jobId].result as { ids_in_file?: number; ids_added?: number; ids_removed?: number };
async function uploadAndWait(lines: string, entityType = 'RSID') {
  const res = await api.upload(uploadPath(), lines, entityType);
  expect(res.status).toBe(201);
  const body = (await api.waitForJob(`${uploadPath()}/${res.body.job_id}`)).body;
  return { ...body, ...jobResult(res.body.job_id) };
}
const readAll = async (kind: 'rsid' | 'access-respondent-guid') => (await api.req('GET', `${X}/${kind}/paginated?page_size=1000`)).body.data;

describe('Endpoints › ID-based exclusions › upload by file', () => {
  it('answers 201 {job_id}; the job is Processing, then Success, and the IDs are readable', async () => {
    // Long enough that the read right after the create finds the job still running on a loaded machine.
    sb.setFaults({ job_duration_ms: 2_000 });
    const res = await api.upload(uploadPath(), `${r1}\n${r2}\n`, 'RSID');
    expect(res.status).toBe(201);
    // Exactly the reference's answer: {job_id} (no status on create).
    expect(Object.keys(res.body)).toEqual(['job_id']);
    expect(typeof res.body.job_id).toBe('string');
    expect(res.headers.get('location')).toBe(`${uploadPath()}/${res.body.job_id}`);
    expect((await api.req('GET', `${uploadPath()}/${res.body.job_id}`)).body.status).toBe('Processing');
    const done = await api.waitForJob(`${uploadPath()}/${res.body.job_id}`);
    // The reference's job fields only: no entity_type, ids_in_file or ids_added.
    expect(Object.keys(done.body).sort()).toEqual(['completed_at', 'created_at', 'created_by', 'job_id', 'status']);
    expect(done.body).toMatchObject({ job_id: res.body.job_id, status: 'Success' });
    expect(jobResult(res.body.job_id)).toMatchObject({ ids_in_file: 2, ids_added: 2 });
    expect(await readAll('rsid')).toEqual([r1, r2]);
  });

  it('adds IDs to the list (de-duplicated), never replaces it', async () => {
    await uploadAndWait(`${r1}\n${r2}\n`);
    const second = await uploadAndWait(`${r2}\n${r3}\n${r3.toUpperCase()}\n`);
    expect(second.ids_added).toBe(1);
    expect(await readAll('rsid')).toEqual([r1, r2, r3]);
  });

  it('accepts CRLF lines, blank lines and a BOM', async () => {
    await uploadAndWait(`\ufeff${r1}\r\n\r\n${r2}\r\n`);
    expect(await readAll('rsid')).toEqual([r1, r2]);
  });

  it('stores access respondent GUIDs in their own list (lower-cased)', async () => {
    const guid = randomUUID().toUpperCase();
    await uploadAndWait(`${guid}\n`, 'ACCESS_RESPONDENT_GUID');
    expect(await readAll('access-respondent-guid')).toEqual([guid.toLowerCase()]);
    expect(await readAll('rsid')).toEqual([]);
  });

  it.each([
    ['ACCESS_RESPONDENT_GUID', `${randomUUID()}\n${randomUUID()}\nnot-a-guid\n`, 'line 3'],
    ['RSID', '\n\n', 'no IDs'],
  ])('fails a %s job with a bad file, naming the problem (%#), and adds nothing', async (entityType, lines, reason) => {
    const job = await uploadAndWait(lines, entityType);
    expect(job.status).toBe('Failed');
    expect(job.failure_reason.description).toContain(reason);
    expect((await api.state()).counts.excluded_ids).toBe(0);
  });

  it.each([
    ['a line that is not a UUID', `${r1}\nrsid-2\n`, 2],
    ['a line with a space', `${r1}\n${r2}\n${r3} \n`, 3],
    ['a UUID without its dashes', `${r1.replace(/-/g, '')}\n`, 1],
  ])('refuses an RSID file with %s at once: 400 bad_request_error naming the line, not its content; no job', async (_what, lines, line) => {
    const res = await api.upload(uploadPath(), lines, 'RSID');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ object: 'bad_request_error', invalid_params: [{ name: 'file', reason: `line ${line} is not an RSID (a UUID)` }] });
    expect(typeof res.body.id).toBe('string');
    expect(res.text).not.toContain('rsid-2');
    expect((await api.state()).counts.jobs).toBe(0);
    // The recontact upload takes RSIDs too: the same rule.
    const recontact = await api.upload(`${tgPath}/recontacts/jobs/upload-respondents-by-file`, lines, 'RSID');
    expect(recontact.status).toBe(400);
    expect(recontact.body.invalid_params).toEqual([{ name: 'file', reason: `line ${line} is not an RSID (a UUID)` }]);
  });

  it('requires entity_type RSID or ACCESS_RESPONDENT_GUID and the multipart field "file"', async () => {
    for (const entityType of [null, 'EMAIL']) {
      const res = await api.upload(uploadPath(), `${r1}\n`, entityType);
      expect(res.status).toBe(400);
      expect(paramNames(res)).toEqual(['entity_type']);
    }
    const form = new FormData();
    form.append('other', new Blob([`${r1}\n`]), 'ids.txt');
    const noFile = await api.req('POST', `${uploadPath()}?entity_type=RSID`, { raw: form });
    expect(noFile.status).toBe(400);
    expect(paramNames(noFile)).toEqual(['file']);
  });

  it('answers 415 for a body that is not multipart/form-data and 400 for a malformed one', async () => {
    expect((await api.req('POST', `${uploadPath()}?entity_type=RSID`, { body: { file: 'a' } })).status).toBe(415);
    const broken = await api.req('POST', `${uploadPath()}?entity_type=RSID`, { raw: 'no parts here', contentType: 'multipart/form-data; boundary=xyz' });
    expect(broken.status).toBe(400);
  });

  it('runs one job per target group at a time (409 conflict_error)', async () => {
    sb.setFaults({ job_duration_ms: 60_000 });
    expect((await api.upload(uploadPath(), `${r1}\n`, 'RSID')).status).toBe(201);
    const second = await api.upload(uploadPath(), `${r2}\n`, 'RSID');
    expect(second.status).toBe(409);
    expect(second.body.object).toBe('conflict_error');
    const removeAll = await api.req('POST', `${X}/jobs/remove-all-respondents?entity_type=RSID`);
    expect(removeAll.status).toBe(409);
    const other = (await api.projectWithTargetGroup()).tgPath;
    expect((await api.upload(`${other}/exclusions/jobs/upload-respondents-by-file`, `${r1}\n`, 'RSID')).status).toBe(201);
  });

  it('ends a job Failed with failure_reason under the job_failure_rate fault', async () => {
    sb.setFaults({ job_duration_ms: 5, job_failure_rate: 1 });
    const job = await uploadAndWait(`${r1}\n`);
    expect(job.status).toBe('Failed');
    expect(job.failure_reason.description).toMatch(/simulated/);
    expect(await readAll('rsid')).toEqual([]);
  });

  it('answers 404 for an unknown job and for a job of another target group', async () => {
    expect((await api.req('GET', `${uploadPath()}/job_missing`)).status).toBe(404);
    const other = (await api.projectWithTargetGroup()).tgPath;
    const res = await api.upload(`${other}/exclusions/jobs/upload-respondents-by-file`, `${r1}\n`, 'RSID');
    expect((await api.req('GET', `${uploadPath()}/${res.body.job_id}`)).status).toBe(404);
  });
});

describe('Limits › ID-based exclusions per target group', () => {
  const ids = (n: number, series: number) => Array.from({ length: n }, (_, i) => rsid(i, series)).join('\n');

  it('accepts 100,000 IDs, then fails a job that would exceed 100,000 in total (nothing added)', async () => {
    const full = await uploadAndWait(ids(100_000, 1));
    expect(full).toMatchObject({ status: 'Success', ids_added: 100_000 });
    const over = await uploadAndWait(`${rsid(0, 2)}\n`);
    expect(over.status).toBe('Failed');
    expect(over.failure_reason.description).toContain('100000');
    const again = await uploadAndWait(`${rsid(5, 1)}\n`);
    expect(again).toMatchObject({ status: 'Success', ids_added: 0 });
    expect((await api.state()).counts.excluded_ids).toBe(100_000);
  });

  it('counts RSIDs and GUIDs together towards the limit', async () => {
    await uploadAndWait(ids(99_999, 1));
    const guids = `${randomUUID()}\n${randomUUID()}\n`;
    const job = await uploadAndWait(guids, 'ACCESS_RESPONDENT_GUID');
    expect(job.status).toBe('Failed');
  });

  it('fails a file with more than 100,000 distinct IDs', async () => {
    const job = await uploadAndWait(ids(100_001, 3));
    expect(job.status).toBe('Failed');
    expect(job.failure_reason.description).toMatch(/file holds more than 100000/);
  });

  it('answers 413 content_too_large_error for an upload body above 8 MiB', async () => {
    const res = await api.upload(uploadPath(), `${r1}${'0'.repeat(24)}\n`.repeat(140_000), 'RSID');
    expect(res.status).toBe(413);
    expect(res.body.object).toBe('content_too_large_error');
    expect((await api.state()).counts.jobs).toBe(0);
  });
});

describe('Endpoints › ID-based exclusions › paginated reads and remove-all', () => {
  it('pages RSIDs with page_size up to 1000 and start_after', async () => {
    await uploadAndWait(Array.from({ length: 2500 }, (_, i) => rsid(i)).join('\n'));
    const first = await api.req('GET', `${X}/rsid/paginated?page_size=1000`);
    // The reference's ID pages: {data, url, next_cursor}, no has_more; the last page has no cursor.
    expect(first.body.data).toHaveLength(1000);
    expect(first.body).not.toHaveProperty('has_more');
    expect(first.body.url).toBe(`${X}/rsid/paginated`);
    const second = await api.req('GET', `${X}/rsid/paginated?page_size=1000&start_after=${first.body.next_cursor}`);
    expect(second.body.data[0]).toBe(rsid(1000));
    const third = await api.req('GET', `${X}/rsid/paginated?page_size=1000&start_after=${second.body.next_cursor}`);
    expect(third.body.data).toHaveLength(500);
    expect(third.body).not.toHaveProperty('next_cursor');
    expect((await api.req('GET', `${X}/rsid/paginated?page_size=1001`)).status).toBe(400);
  });

  it('removes the IDs of one entity_type with the remove-all job (201 {job_id}, then Success); entity_type is required', async () => {
    await uploadAndWait(`${r1}\n${r2}\n`);
    const guid = randomUUID();
    await uploadAndWait(`${guid}\n`, 'ACCESS_RESPONDENT_GUID');
    const missing = await api.req('POST', `${X}/jobs/remove-all-respondents`);
    expect(missing.status).toBe(400);
    expect(paramNames(missing)).toEqual(['entity_type']);
    const start = await api.req('POST', `${X}/jobs/remove-all-respondents?entity_type=RSID`);
    expect(start.status).toBe(201);
    expect(Object.keys(start.body)).toEqual(['job_id']);
    const done = await api.waitForJob(`${X}/jobs/remove-all-respondents/${start.body.job_id}`);
    expect(Object.keys(done.body).sort()).toEqual(['completed_at', 'created_at', 'created_by', 'job_id', 'status']);
    expect(done.body.status).toBe('Success');
    expect(jobResult(start.body.job_id)).toMatchObject({ ids_removed: 2 });
    expect(done.body.created_by).toMatch(/^[0-9a-f-]{36}$/);
    expect(await readAll('rsid')).toEqual([]);
    expect(await readAll('access-respondent-guid')).toEqual([guid]);
    expect((await api.req('GET', `${X}/jobs/upload-respondents-by-file/${start.body.job_id}`)).status).toBe(404);
  });
});
