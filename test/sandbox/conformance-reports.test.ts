// Reports in the sandbox, in both dialects (docs/sandbox.md › Reports): generate_report at the levels the
// reference's table allows (others 400), report_status progressing on the sandbox clock, download_report_v2 giving
// a CSV generated from the simulated sessions (reconciliation-eligible-rids: per RID its target group, project, when
// it completed and until when it can be reconciled), report_requests listing and filtering, share_report's
// temporary link.
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox, SandboxDialectName } from '../../sandbox/index';
import { P, SandboxTestClient, paramNames, startTestSandbox, type ApiResponse } from './sandbox-test-client';

const BASE = Date.parse('2026-12-10T00:00:00.000Z');
const MINUTE = 60_000;

/** Rows of a CSV file with a header row, as objects by column (the sandbox's files quote no field here). */
function rowsOf(text: string): Array<Record<string, string>> {
  const [header, ...lines] = text.split('\r\n').filter(Boolean);
  const columns = header.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((v, i) => [columns[i], v])));
}

describe.each(['spec', 'cint'] as const)('reports in the %s dialect', (dialect: SandboxDialectName) => {
  let sb: RunningSandbox;
  let api: SandboxTestClient;
  let started = 0;
  let jump = 0;

  beforeAll(async () => {
    started = Date.now();
    ({ sb, api } = await startTestSandbox({ dialect, clock: () => BASE + (Date.now() - started) + jump }));
  });
  beforeEach(async () => {
    sb.reset();
    sb.setFaults({ job_duration_ms: 20 });
    await api.admin('PUT', '/fielding/settings', { pool_size: 2000, speed: 1, seed: `reports-${dialect}` });
  });
  afterAll(async () => {
    await sb?.close();
  });

  const REPORTS = `${P()}/reports`;
  const advance = async (minutes: number) => expect((await api.admin('POST', '/fielding/advance', { minutes })).status).toBe(200);
  const simulatedNow = async () => Date.parse((await api.admin('GET', '/fielding/settings')).body.simulated_now as string);
  const advanceTo = async (iso: string) => advance((Date.parse(iso) - (await simulatedNow())) / MINUTE);
  const rids = async (tgId: string, status?: string) => (await api.admin('GET', `/fielding/target-groups/${tgId}/rids${status ? `?status=${status}` : ''}`)).body.data as Array<Record<string, string>>;
  const sessions = async (tgId: string) => (await api.admin('GET', `/fielding/target-groups/${tgId}/sessions`)).body.data as Array<Record<string, any>>;
  const generate = (type: string, body: Record<string, unknown>) => api.req('POST', `${REPORTS}/${type}`, { body });

  /** A group of its own project, fielded to its goal in December (simulated) and settled (see the reconciliations test). */
  async function fieldedGroup(goal = 10) {
    const made = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s', filling_goal: goal });
    const launch = await api.req('POST', `${made.tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
    expect(launch.status, launch.text).toBe(201);
    await api.waitForJob(launch.headers.get('location')!);
    await advance(1440);
    await advance(2880);
    expect((await rids(made.tg.id, 'Complete')).length).toBeGreaterThan(3);
    return made;
  }

  async function completed(reportId: string): Promise<ApiResponse> {
    for (let i = 0; i < 300; i++) {
      const res = await api.req('GET', `${REPORTS}/${reportId}/status`);
      expect(res.status, res.text).toBe(200);
      if (res.body.status === 'completed') return res;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`report ${reportId} still in progress`);
  }

  async function fileOf(type: string, body: Record<string, unknown>): Promise<Array<Record<string, string>>> {
    const res = await generate(type, body);
    expect(res.status, res.text).toBe(202);
    await completed(res.body.report_id);
    const file = await api.req('GET', `${REPORTS}/${res.body.report_id}/download`);
    expect(file.status, file.text).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^text\/csv/);
    return rowsOf(file.text);
  }

  it('generate_report answers 202 pending; the status is in_progress until the sandbox clock passes its due time, then completed with the file\'s URL', async () => {
    const { project } = await fieldedGroup();
    sb.setFaults({ job_duration_ms: 5_000 });
    const res = await generate('completes', { filter: 'project', filter_ids: [project.id], start_date: '2026-12-01', end_date: '2026-12-31', report_options: { include_respondent_answers: true } });
    expect(res.status, res.text).toBe(202);
    const id = res.body.report_id as string;
    expect(id).toMatch(/^[0-9A-Z]{26}$/);
    expect(res.body).toEqual({
      message: 'Report Created', report_id: id, report_url: `${sb.baseUrl}${REPORTS}/${id}/download`, create_date: expect.any(String), status: 'pending', report_type: 'completes', level: 'Project',
      create_params: { start_date: '2026-12-01', end_date: '2026-12-31', filter: 'project', filter_ids: [project.id], report_options: { include_respondent_answers: true } },
    });
    const pending = await api.req('GET', `${REPORTS}/${id}/status`);
    expect(pending.body).toEqual({ report_id: id, status: 'in_progress', message: expect.any(String), start_date: '2026-12-01T00:00:00.000Z', end_date: '2026-12-31T00:00:00.000Z', data_analysis: false, respondent_answer: true });
    const early = await api.req('GET', `${REPORTS}/${id}/download`);
    expect(early.status).toBe(400);
    expect(early.body.object).toBe('bad_request_error');
    jump += 6_000;
    const done = await completed(id);
    expect(done.body).toMatchObject({ status: 'completed', report_url: res.body.report_url });
    expect((await api.req('GET', `${REPORTS}/01ZZZZZZZZZZZZZZZZZZZZZZZZ/status`)).status).toBe(404);
    expect((await api.req('GET', `${P(1002)}/reports/${id}/status`)).status).toBe(404);
  });

  it('completes: one row per complete of the scope, from the simulated sessions, at every level the reference allows', async () => {
    const { tg, project } = await fieldedGroup();
    const other = await fieldedGroup();
    const complete = (await sessions(tg.id)).filter((s) => s.status === 'Complete');
    const byProject = await fileOf('completes', { filter: 'project', filter_ids: [project.id] });
    expect(byProject.map((r) => r.rid).sort()).toEqual(complete.map((s) => s.session_id).sort());
    const row = byProject.find((r) => r.rid === complete[0].session_id)!;
    expect(row).toEqual({
      rid: complete[0].session_id, project_id: project.id, target_group_id: tg.id, supplier_id: String(complete[0].supplier_id), respondent_id: complete[0].respondent_id,
      entry_date: complete[0].entry_date, completed_at: complete[0].respondent_update_date, cost_per_interview: complete[0].cost_per_interview.value, currency_code: 'USD',
    });
    const otherCompletes = (await rids(other.tg.id, 'Complete')).length;
    expect((await fileOf('completes', {})).length).toBe(complete.length + otherCompletes);
    expect((await fileOf('completes', { filter: null })).length).toBe(complete.length + otherCompletes);
    expect((await fileOf('completes', { filter: 'business_unit', filter_ids: ['2001'] })).length).toBe(complete.length + otherCompletes);
    expect((await fileOf('completes', { filter: 'target_group', filter_ids: [tg.id, other.tg.id] })).length).toBe(complete.length + otherCompletes);
    // A date range outside the fielding: no rows.
    expect(await fileOf('completes', { filter: 'project', filter_ids: [project.id], start_date: '2027-01-01', end_date: '2027-01-31' })).toEqual([]);
  });

  it('reconciliation-eligible-rids: per RID its target group, project, when it completed and until when; a reversed or expired complete is not listed', async () => {
    const { tg, project } = await fieldedGroup();
    const other = await fieldedGroup();
    const completes = await rids(tg.id, 'Complete');
    const file = await fileOf('reconciliation-eligible-rids', { filter: 'target_group', filter_ids: [tg.id, other.tg.id] });
    const otherCompletes = await rids(other.tg.id, 'Complete');
    expect(file.length).toBe(completes.length + otherCompletes.length);
    for (const c of completes) {
      expect(file.find((r) => r.rid === c.rid)).toEqual({ rid: c.rid, project_id: project.id, target_group_id: tg.id, target_group_name: 'Adults 18-65', completed_at: c.completed_at, reconcile_until: '2027-01-25T23:59:59.999Z' });
    }
    expect(file.filter((r) => r.target_group_id === other.tg.id).map((r) => r.rid).sort()).toEqual(otherCompletes.map((r) => r.rid).sort());
    // One reversed: it leaves the file.
    const recon = await api.req('POST', `${P()}/reconciliations?name=one.csv`, { raw: `${completes[0].rid},21\n`, contentType: 'text/csv' });
    expect(recon.status).toBe(202);
    const byProject = await fileOf('reconciliation-eligible-rids', { filter: 'project', filter_ids: [project.id] });
    expect(byProject.map((r) => r.rid).sort()).toEqual(completes.slice(1).map((c) => c.rid).sort());
    // After the 25th of January the December completes are out of their window.
    await advanceTo('2027-01-26T00:00:00.000Z');
    expect(await fileOf('reconciliation-eligible-rids', { filter: 'project', filter_ids: [project.id] })).toEqual([]);
    // The file's Date is the simulated now: the clock its windows are judged by.
    const last = (await api.req('GET', REPORTS)).body.reports_requests[0].report_id as string;
    const download = await api.req('GET', `${REPORTS}/${last}/download`);
    expect(Math.abs(Date.parse(download.headers.get('date')!) - (await simulatedNow()))).toBeLessThan(5_000);
  });

  it('reconciliations-status and respondent-analysis: the requests\' counts per target group, the sessions by status', async () => {
    const { tg, project } = await fieldedGroup();
    const completes = await rids(tg.id, 'Complete');
    const recon = await api.req('POST', `${P()}/reconciliations?name=status.csv`, { raw: `${completes[0].rid},21\n${completes[1].rid},22\nunknown-rid,21\n`, contentType: 'text/csv' });
    const status = await fileOf('reconciliations-status', {});
    expect(status).toEqual([{
      request_id: recon.body.request_id, name: 'status.csv', submission_type: 'rejected_rids', status: 'complete', submitted_at: expect.any(String), target_group_id: tg.id, project_id: project.id,
      submitted: '2', expired: '0', invalid: '0', positive_reversed: '0', negative_reversed: '2',
    }]);
    expect(await fileOf('reconciliations-status', { filter: 'project', filter_ids: [project.id] })).toEqual(status);
    const all = await sessions(tg.id);
    const analysis = await fileOf('respondent-analysis', { filter: 'project', filter_ids: [project.id] });
    expect(analysis.reduce((n, r) => n + Number(r.count), 0)).toBe(all.length);
    expect(analysis.find((r) => r.status === 'Complete')?.count).toBe(String(all.filter((s) => s.status === 'Complete').length));
    expect(analysis.find((r) => r.status === 'Terminate')?.count).toBe(String(all.filter((s) => s.status === 'Terminate').length));
    expect(analysis.every((r) => r.target_group_id === tg.id && r.project_id === project.id)).toBe(true);
    const bought = await fileOf('sample-bought', { filter: 'target_group', filter_ids: [tg.id] });
    expect(bought).toEqual([{ project_id: project.id, target_group_id: tg.id, target_group_name: 'Adults 18-65', completes: String(completes.length - 2), cost: expect.any(String), currency_code: 'USD' }]);
    const terms = await fileOf('term-details', { filter: 'target_group', filter_ids: [tg.id] });
    expect(terms.map((r) => r.rid).sort()).toEqual(all.filter((s) => s.status === 'Terminate').map((s) => s.session_id).sort());
  });

  it('refused with 400 naming the field: a level the type does not support, several ids where one is allowed, ids outside the account, a range over six months, an unknown type or field', async () => {
    const { tg, project } = await fieldedGroup();
    const other = await api.createProject();
    const cases: Array<[string, Record<string, unknown>, string[]]> = [
      ['respondent-analysis', {}, ['filter']],
      ['reconciliation-eligible-rids', { filter: 'business_unit', filter_ids: ['2001'] }, ['filter']],
      ['term-details', { filter: 'project', filter_ids: [project.id] }, ['filter']],
      ['reconciliation-eligible-rids', { filter: 'project', filter_ids: [project.id, other.id] }, ['filter_ids']],
      ['respondent-analysis', { filter: 'project', filter_ids: [] }, ['filter_ids']],
      ['completes', { filter: 'target_group', filter_ids: [tg.id, '01ZZZZZZZZZZZZZZZZZZZZZZZZ'] }, ['filter_ids[1]']],
      ['completes', { filter: 'business_unit', filter_ids: ['2101'] }, ['filter_ids[0]']],
      ['completes', { start_date: '2026-01-01', end_date: '2026-12-31' }, ['end_date']],
      ['completes', { start_date: '2026-12-31', end_date: '2026-12-01' }, ['end_date']],
      ['completes', { start_date: '1 Dec 2026' }, ['start_date']],
      ['completes', { filter: 'account' }, ['filter']],
      ['completes', { email_recipients: [] }, ['email_recipients']],
      ['completes', { report_options: { link_type: 1 } }, ['report_options.link_type']],
      ['completes', { format: 'xlsx' }, ['format']],
      ['everything', {}, ['report_type']],
    ];
    for (const [type, body, names] of cases) {
      const res = await generate(type, body);
      expect(res.status, `${type} ${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.body.object).toBe('bad_request_error');
      expect(paramNames(res), `${type} ${JSON.stringify(body)}`).toEqual(names);
    }
    expect((await api.state()).records.slices.reports).toBeUndefined();
  });

  it('random request bodies and types: 202 or a 400 with the standard error body, never a 5xx; a 400 stores nothing', async () => {
    const { tg, project } = await fieldedGroup();
    const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(project.id, tg.id, '2001', '2026-12-01', '2027-07-01', null, [project.id], [tg.id, project.id], { include_respondent_answers: true }, { link_type: 2 }));
    const body = fc.dictionary(fc.constantFrom('filter', 'filter_ids', 'start_date', 'end_date', 'report_options', 'email_recipients', 'level', 'format'), value, { maxKeys: 4 });
    const filter = fc.constantFrom('account', 'business_unit', 'project', 'target_group', null);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('completes', 'reconciliation-eligible-rids', 'reconciliations-status', 'respondent-analysis', 'sample-bought', 'term-details', 'other'), body, filter, async (type, fields, level) => {
        // Reports already accepted may complete meanwhile: a refusal adds none.
        const reportIds = async () => Object.keys((await api.state()).records.slices.reports?.reports ?? {}).sort();
        const before = await reportIds();
        const res = await generate(type, level === null ? fields : { ...fields, filter: level });
        expect([202, 400], res.text).toContain(res.status);
        if (res.status === 400) {
          expect(res.body).toMatchObject({ id: expect.any(String), object: 'bad_request_error', detail: expect.any(String) });
          expect(await reportIds()).toEqual(before);
        }
      }),
      { numRuns: 80, seed: 36 },
    );
  });

  it('report_requests: the account\'s requests, newest first, filtered by report_type, level and Status, paged', async () => {
    const { project } = await fieldedGroup();
    const a = await generate('completes', {});
    await completed(a.body.report_id);
    const b = await generate('respondent-analysis', { filter: 'project', filter_ids: [project.id] });
    await completed(b.body.report_id);
    sb.setFaults({ job_duration_ms: 60_000 });
    const c = await generate('completes', { filter: 'project', filter_ids: [project.id] });
    const list = await api.req('GET', REPORTS);
    expect(list.status, list.text).toBe(200);
    expect(list.body.reports_requests.map((r: { report_id: string }) => r.report_id)).toEqual([c.body.report_id, b.body.report_id, a.body.report_id]);
    expect(list.body.next_cursor).toBeNull();
    expect(list.body.reports_requests[2]).toEqual({
      account_name: 'Sandbox Research Buyer', create_date: a.body.create_date, create_params: { filter_ids: ['1001'], report_options: null }, report_id: a.body.report_id,
      report_type: 'completes', report_url: a.body.report_url, status: 'completed', level: 'Account',
    });
    expect(list.body.reports_requests[0]).not.toHaveProperty('report_url');
    expect(list.body.reports_requests[0].status).toBe('pending');
    const ids = async (query: string) => (await api.req('GET', `${REPORTS}?${query}`)).body.reports_requests.map((r: { report_id: string }) => r.report_id);
    expect(await ids('report_type=completes')).toEqual([c.body.report_id, a.body.report_id]);
    expect(await ids('level=project')).toEqual([c.body.report_id, b.body.report_id]);
    expect(await ids('Status=processing')).toEqual([c.body.report_id]);
    expect(await ids('Status=completed')).toEqual([b.body.report_id, a.body.report_id]);
    const first = await api.req('GET', `${REPORTS}?page_size=2`);
    expect(first.body.reports_requests).toHaveLength(2);
    expect(await ids(`page_size=2&start_after=${first.body.next_cursor}`)).toEqual([a.body.report_id]);
    for (const query of ['report_type=all', 'level=country', 'Status=pending', 'page_size=0']) expect((await api.req('GET', `${REPORTS}?${query}`)).status, query).toBe(400);
    expect((await api.req('GET', `${P(1002)}/reports`)).body.reports_requests).toEqual([]);
  });

  it('share_report: a temporary link that serves the file without a bearer; report_type required and matching; invalid once altered or expired', async () => {
    const { project } = await fieldedGroup();
    const res = await generate('completes', { filter: 'project', filter_ids: [project.id] });
    await completed(res.body.report_id);
    const base = `${REPORTS}/${res.body.report_id}/share`;
    expect(paramNames(await api.req('GET', base))).toEqual(['report_type']);
    expect((await api.req('GET', `${base}?report_type=sample-bought`)).status).toBe(404);
    const shared = await api.req('GET', `${base}?report_type=completes`);
    expect(shared.status, shared.text).toBe(200);
    expect(Object.keys(shared.body)).toEqual(['report_pre_signed_url']);
    const url = shared.body.report_pre_signed_url as string;
    const download = await api.req('GET', `${REPORTS}/${res.body.report_id}/download`);
    const open = await fetch(url);
    expect(open.status).toBe(200);
    expect(await open.text()).toBe(download.text);
    expect((await fetch(url.replace(/signature=[0-9a-f]/, (m) => (m.endsWith('0') ? `${m.slice(0, -1)}1` : `${m.slice(0, -1)}0`)))).status).toBe(403);
    jump += 16 * MINUTE;
    expect((await fetch(url)).status).toBe(403);
  });
});
