// Reconciliations (close-out) in the sandbox, in both dialects (docs/sandbox.md › Reconciliations): reason codes,
// submitting a `RID,code` file (limits, CRLF, malformed lines, phased-out codes, Idempotency-Key), its progress on
// the sandbox clock to counts per target group, the reversal window on the fielding simulation's clock, reversed
// completes turning Terminate (performance, completes_cost, metrics, a session-updated webhook event), the
// approved-RIDs submission of a project, the downloads and the eligible target groups.
import { createServer, type Server } from 'node:http';
import fc from 'fast-check';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox, SandboxDialectName } from '../../sandbox/index';
import { P, SandboxTestClient, paramNames, startTestSandbox, type ApiResponse } from './sandbox-test-client';

/** The sandbox clock: 2026-12-10T00:00Z when the sandbox starts, then real time, plus what a test adds. */
const BASE = Date.parse('2026-12-10T00:00:00.000Z');
const MINUTE = 60_000;

interface Rid {
  rid: string;
  project_id: string;
  target_group_id: string;
  status: string;
  completed_at?: string;
  reconcile_until?: string;
}

describe.each(['spec', 'cint'] as const)('reconciliations in the %s dialect', (dialect: SandboxDialectName) => {
  let sb: RunningSandbox;
  let api: SandboxTestClient;
  let started = 0;
  let jump = 0;
  let receiver: Server;
  let receiverUrl = '';
  let received: Array<{ type: string; data: any }> = [];
  const sessionEvent = dialect === 'cint' ? 'session-updated' : 'com.svc.session.updated';

  beforeAll(async () => {
    started = Date.now();
    ({ sb, api } = await startTestSandbox({ dialect, clock: () => BASE + (Date.now() - started) + jump }));
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        received.push({ type: event.type, data: event.data });
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  beforeEach(async () => {
    sb.reset();
    sb.setFaults({ job_duration_ms: 20 });
    received = [];
    await api.admin('PUT', '/fielding/settings', { pool_size: 2000, speed: 1, seed: `recon-${dialect}` });
  });
  afterAll(async () => {
    await sb?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const RECON = `${P()}/reconciliations`;
  const csv = (lines: string[], eol = '\n') => lines.join(eol) + eol;
  const post = (body: string, opts: { name?: string | null; key?: string; contentType?: string } = {}) => {
    const query = opts.name === null ? '' : `?name=${encodeURIComponent(opts.name ?? 'recon.csv')}`;
    return api.req('POST', `${RECON}${query}`, { raw: body, contentType: opts.contentType ?? 'text/csv', headers: opts.key ? { 'idempotency-key': opts.key } : {} });
  };
  const advance = async (minutes: number) => {
    const res = await api.admin('POST', '/fielding/advance', { minutes });
    expect(res.status, res.text).toBe(200);
  };
  const simulatedNow = async () => Date.parse((await api.admin('GET', '/fielding/settings')).body.simulated_now as string);
  /** Moves simulated time to `iso` (the sandbox clock stays). */
  const advanceTo = async (iso: string) => advance((Date.parse(iso) - (await simulatedNow())) / MINUTE);
  const rids = async (tgId: string, status?: string) => (await api.admin('GET', `/fielding/target-groups/${tgId}/rids${status ? `?status=${status}` : ''}`)).body.data as Rid[];

  /**
   * A group of its own project that fielded to its goal in December (simulated), then two more days, so that every
   * session has finished and the simulation's own reversals are done: nothing changes in it unless a test does it.
   */
  async function fieldedGroup(goal = 12, overrides: Record<string, unknown> = {}) {
    const made = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s', filling_goal: goal, ...overrides });
    const launch = await api.req('POST', `${made.tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
    expect(launch.status, launch.text).toBe(201);
    await api.waitForJob(launch.headers.get('location')!);
    await advance(1440);
    expect((await api.state()).records.target_groups[made.tg.id].status, 'the group reached its goal').toBe('completed');
    await advance(2880);
    const completes = await rids(made.tg.id, 'Complete');
    expect((await rids(made.tg.id, 'Started')).length).toBe(0);
    expect(completes.length, 'completes to reconcile').toBeGreaterThanOrEqual(4);
    return { ...made, completes };
  }

  /** Polls the request until it leaves processing. */
  async function finished(requestId: string): Promise<ApiResponse> {
    for (let i = 0; i < 300; i++) {
      const res = await api.req('GET', `${RECON}/${requestId}`);
      expect(res.status, res.text).toBe(200);
      if (res.body.status !== 'processing') return res;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`reconciliation ${requestId} still processing`);
  }

  const reconcileRecords = async () => (await api.state()).records.slices.reconciliations?.requests ?? {};

  it('reason codes: the reference\'s {code, name, description, allowed}, one of them phased out (allowed: false)', async () => {
    const res = await api.req('GET', `${RECON}/reason-codes`);
    expect(res.status, res.text).toBe(200);
    const reasons = res.body.reconciliation_reasons as Array<Record<string, unknown>>;
    expect(reasons.length).toBeGreaterThan(1);
    for (const reason of reasons) {
      expect(Object.keys(reason).sort()).toEqual(['allowed', 'code', 'description', 'name']);
      expect(typeof reason.code).toBe('string');
      expect(String(reason.description).length).toBeGreaterThan(0);
    }
    expect(reasons.filter((r) => r.allowed === false).length).toBeGreaterThanOrEqual(1);
    expect(reasons.filter((r) => r.allowed === true).length).toBeGreaterThanOrEqual(1);
  });

  it('a submission is processing until the sandbox clock passes its due time, then complete with counts per target group; reversed completes become Terminate', async () => {
    const { tg, tgPath, completes } = await fieldedGroup();
    const webhook = await api.req('POST', '/v1/accounts/1001/webhooks', { body: { url: `${receiverUrl}/hook`, events: [sessionEvent] } });
    expect(webhook.status, webhook.text).toBe(201);
    const before = (await api.req('GET', `${tgPath}/performance`)).body;
    const overviewBefore = (await api.req('GET', `${tgPath}/overview`)).body;
    const terminate = (await rids(tg.id, 'Terminate'))[0];
    const [a, b] = completes;
    sb.setFaults({ job_duration_ms: 5_000 });
    const file = csv([`${a.rid},21`, `${b.rid},24`, 'not-a-session-of-this-account,22', ...(terminate ? [`${terminate.rid},21`] : [])]);
    const res = await post(file, { name: 'december.csv' });
    expect(res.status, res.text).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(['name', 'request_id']);
    expect(res.body.name).toBe('december.csv');
    expect(res.body.request_id).toMatch(/^[0-9A-Z]{26}$/);
    const id = res.body.request_id as string;

    // Processing: the submitted count only; nothing reversed yet; submitted-rids is there, the results are not.
    const processing = await api.req('GET', `${RECON}/${id}`);
    expect(processing.body).toEqual({ request_id: id, name: 'december.csv', status: 'processing', submitted_at: expect.any(String), submitted_count: terminate ? 4 : 3, submission_type: 'rejected_rids' });
    expect((await rids(tg.id)).find((r) => r.rid === a.rid)?.status).toBe('Complete');
    const submitted = await api.req('GET', `${RECON}/${id}/downloads/submitted-rids`);
    expect(submitted.status).toBe(200);
    expect(submitted.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(submitted.text).toBe(file);
    const early = await api.req('GET', `${RECON}/${id}/downloads/invalid-rids`);
    expect(early.status, early.text).toBe(400);
    expect(early.body.object).toBe('bad_request_error');

    jump += 6_000;
    const done = await finished(id);
    expect(done.body).toEqual({
      request_id: id, name: 'december.csv', status: 'complete', submitted_at: processing.body.submitted_at, submitted_count: terminate ? 4 : 3,
      expired_count: 0, invalid_count: terminate ? 2 : 1, positive_reversed_count: 0, negative_reversed_count: 2, submission_type: 'rejected_rids',
    });
    const groups = await api.req('GET', `${RECON}/${id}/target-groups`);
    expect(groups.status, groups.text).toBe(200);
    const counts = { target_group_id: tg.id, status: 'complete', submitted_count: terminate ? 3 : 2, expired_count: 0, invalid_count: terminate ? 1 : 0, positive_reversed_count: 0, negative_reversed_count: 2 };
    expect(groups.body).toEqual({ target_groups: [counts], next_cursor: null, page_size: 10 });
    expect((await api.req('GET', `${RECON}/${id}/target-groups/${tg.id}`)).body).toEqual(counts);
    expect((await api.req('GET', `${RECON}/${id}/target-groups/01ZZZZZZZZZZZZZZZZZZZZZZZZ`)).status).toBe(404);
    const invalid = await api.req('GET', `${RECON}/${id}/downloads/invalid-rids`);
    expect(invalid.text.split('\r\n').filter(Boolean).sort()).toEqual(['not-a-session-of-this-account,22', ...(terminate ? [`${terminate.rid},21`] : [])].sort());
    expect((await api.req('GET', `${RECON}/${id}/downloads/expired-rids`)).text).toBe('');
    expect((await api.req('GET', `${RECON}/${id}/downloads/remaining-project-completes`)).status).toBe(404);
    expect((await api.req('GET', `${RECON}/${id}/downloads/everything`)).status).toBe(400);

    // The two completes are Terminate now: performance, completes_cost, metrics and the overview follow.
    const after = await rids(tg.id);
    expect(after.find((r) => r.rid === a.rid)?.status).toBe('Terminate');
    expect(after.find((r) => r.rid === b.rid)?.status).toBe('Terminate');
    const perf = (await api.req('GET', `${tgPath}/performance`)).body;
    expect(perf.completes).toBe(after.filter((r) => r.status === 'Complete').length);
    const sessions = (await api.admin('GET', `/fielding/target-groups/${tg.id}/sessions`)).body.data as Array<{ status: string; cost_per_interview: { value: string } | null }>;
    const cost = sessions.filter((s) => s.status === 'Complete').reduce((n, s) => n + Math.round(Number(s.cost_per_interview!.value) * 100), 0);
    expect(perf.completes_cost.value).toBe((cost / 100).toFixed(2));
    const cpi = Math.round(Number(sessions.find((s) => s.status === 'Complete')!.cost_per_interview!.value) * 100);
    // Nothing else moved in between (the group fields on only when simulated time moves): exactly two CPIs less.
    expect(Math.round(Number(before.completes_cost.value) * 100) - Math.round(Number(perf.completes_cost.value) * 100)).toBe(2 * cpi);
    expect(before.completes - perf.completes).toBe(2);
    const overview = (await api.req('GET', `${tgPath}/overview`)).body;
    expect(overviewBefore.progress.current_completes - overview.progress.current_completes).toBe(2);
    const state = await api.state();
    expect(state.records.target_groups[tg.id].metrics.completes).toBe(perf.completes);

    // A session-updated event carries the two sessions as Terminate.
    for (let i = 0; i < 300 && !received.some((e) => e.data.sessions.some((s: { session_id: string; status: string }) => s.session_id === a.rid && s.status === 'Terminate')); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const reversed = received.filter((e) => e.type === sessionEvent).flatMap((e) => e.data.sessions as Array<{ session_id: string; status: string }>).filter((s) => s.status === 'Terminate' && (s.session_id === a.rid || s.session_id === b.rid));
    expect(reversed.map((s) => s.session_id).sort()).toEqual([a.rid, b.rid].sort());
  });

  it('quota counters follow a reversal: each reversed complete leaves the quota targets it counted for', async () => {
    const gender = {
      object: 'regular', name: 'Gender', quotas_enabled: true,
      targets: [
        { conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { completes_goal: 6 } },
        { conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { completes_goal: 6 } },
      ],
    };
    const { tg, completes } = await fieldedGroup(12, { profiling: { profile_adjustment_type: 'nominal', profiles: [gender] } });
    type Target = { id: string; quota: { completes: number } };
    const counters = async () => {
      const profile = (await api.state()).records.target_groups[tg.id].profiles[0] as { id: string; targets: Target[] };
      return new Map(profile.targets.map((t) => [`${profile.id}/${t.id}`, t.quota.completes]));
    };
    const before = await counters();
    expect([...before.values()].reduce((n, c) => n + c, 0)).toBe(completes.length);
    const sessions = (await api.admin('GET', `/fielding/target-groups/${tg.id}/sessions`)).body.data as Array<{ session_id: string; quota_target_ids: string[] }>;
    const reversed = completes.slice(0, 3).map((c) => sessions.find((s) => s.session_id === c.rid)!);
    const res = await post(csv(reversed.map((s) => `${s.session_id},25`)));
    await finished(res.body.request_id);
    const after = await counters();
    for (const [key, count] of before) expect(after.get(key), key).toBe(count - reversed.filter((s) => s.quota_target_ids.includes(key)).length);
    expect([...after.values()].reduce((n, c) => n + c, 0)).toBe(completes.length - 3);
  });

  it('the window runs on the simulated clock: a December complete can be reversed until the end of 25 January, later it is expired', async () => {
    const { tg, completes } = await fieldedGroup();
    expect(completes.every((c) => c.completed_at!.startsWith('2026-12'))).toBe(true);
    expect(completes[0].reconcile_until).toBe('2027-01-25T23:59:59.999Z');
    await advanceTo('2027-01-25T23:00:00.000Z');
    const still = (await rids(tg.id, 'Complete')).filter((r) => r.completed_at!.startsWith('2026-12'));
    const [inTime, late] = still;
    const first = await post(csv([`${inTime.rid},21`]));
    expect(first.status, first.text).toBe(202);
    expect((await finished(first.body.request_id)).body).toMatchObject({ negative_reversed_count: 1, expired_count: 0 });

    await advanceTo('2027-01-26T00:30:00.000Z');
    const second = await post(csv([`${late.rid},21`]));
    expect((await finished(second.body.request_id)).body).toMatchObject({ negative_reversed_count: 0, expired_count: 1, invalid_count: 0 });
    expect((await api.req('GET', `${RECON}/${second.body.request_id}/downloads/expired-rids`)).text).toBe(`${late.rid},21\r\n`);
    expect((await rids(tg.id)).find((r) => r.rid === late.rid)?.status).toBe('Complete');
  });

  it('eligible target groups: completes whose window ends this month (default) or next month, this account only', async () => {
    const { tg, project, completes } = await fieldedGroup();
    const eligible = (due?: string) => api.req('GET', `${RECON}/eligible-target-groups${due ? `?due_month=${due}` : ''}`);
    // December: the December completes are due in January (next month); nothing is due in December.
    const now = await eligible();
    expect(now.status, now.text).toBe(200);
    expect(now.body).toMatchObject({ target_groups: [], summary: { completes: '0', target_group_count: '0' }, has_more: false });
    const next = await eligible('next_month');
    const cpi = (await api.admin('GET', `/fielding/target-groups/${tg.id}/sessions`)).body.data.find((s: { status: string }) => s.status === 'Complete').cost_per_interview;
    const completesNow = (await rids(tg.id, 'Complete')).length;
    expect(completesNow).toBe(completes.length);
    expect(next.body.target_groups).toEqual([
      {
        name: 'Adults 18-65', target_group_id: tg.id, project_id: project.id, project_manager: { id: tg.project_manager_id }, status: 'completed', project_name: project.name,
        eligible_completes: String(completesNow), monetary_amount: { value: (completesNow * Number(cpi.value)).toFixed(2), currency_code: 'USD', currency_scale: 2 },
      },
    ]);
    expect(next.body.summary).toEqual({ monetary_amount: next.body.target_groups[0].monetary_amount, completes: String(completesNow), target_group_count: '1' });
    expect(next.body.page_size).toBe(10);
    expect((await api.req('GET', `${P(1002)}/reconciliations/eligible-target-groups?due_month=next_month`)).body.target_groups).toEqual([]);
    expect(paramNames(await eligible('last_month'))).toEqual(['due_month']);

    // 20 January: the December completes are due this month; after the 25th they are gone.
    await advanceTo('2027-01-20T00:00:00.000Z');
    const january = await eligible();
    expect(january.body.target_groups.map((g: { target_group_id: string }) => g.target_group_id)).toEqual([tg.id]);
    const reconciled = await post(csv([`${(await rids(tg.id, 'Complete')).find((r) => r.completed_at!.startsWith('2026-12'))!.rid},23`]));
    await finished(reconciled.body.request_id);
    const afterRecon = await eligible();
    expect(afterRecon.body.target_groups[0].last_reconciliation_date).toMatch(/^2027-01-20T/);
    expect(Number(afterRecon.body.target_groups[0].eligible_completes)).toBe(Number(january.body.target_groups[0].eligible_completes) - 1);
    await advanceTo('2027-01-26T00:00:00.000Z');
    expect((await eligible()).body.target_groups).toEqual([]);
  });

  it('refused at submission, nothing stored: a phased-out code, malformed lines (named), no name, another content type, an empty file', async () => {
    const { completes } = await fieldedGroup();
    const codes = (await api.req('GET', `${RECON}/reason-codes`)).body.reconciliation_reasons as Array<{ code: string; allowed: boolean }>;
    const phasedOut = codes.find((c) => !c.allowed)!.code;
    const before = await reconcileRecords();
    const phased = await post(csv([`${completes[0].rid},21`, `${completes[1].rid},${phasedOut}`]));
    expect(phased.status, phased.text).toBe(400);
    expect(phased.body.object).toBe('bad_request_error');
    expect(phased.body.invalid_params).toEqual([{ name: 'line 2', reason: expect.stringMatching(/phased out/) }]);
    const malformed = await post(csv([`${completes[0].rid},21`, `${completes[1].rid}`, `${completes[2].rid},21,extra`, `${completes[3].rid},99`, 'bad rid!,21', '', `${completes[0].rid},22`]));
    expect(malformed.status).toBe(400);
    expect(paramNames(malformed)).toEqual(['line 2', 'line 3', 'line 4', 'line 5', 'line 6']);
    const header = await post(csv(['RID,reason code', `${completes[0].rid},21`]));
    expect(paramNames(header)).toEqual(['line 1']);
    const noName = await post(csv([`${completes[0].rid},21`]), { name: null });
    expect(paramNames(noName)).toEqual(['name']);
    const json = await post(JSON.stringify({ rids: [completes[0].rid] }), { contentType: 'application/json' });
    expect(json.status).toBe(400);
    expect(paramNames(json)).toEqual(['Content-Type']);
    expect(paramNames(await post(''))).toEqual(['body']);
    expect(await reconcileRecords()).toEqual(before);
    expect((await rids(completes[0].target_group_id, 'Complete')).map((r) => r.rid)).toContain(completes[0].rid);
  });

  it('random files, names and content types: 202 or a 400 with the standard error body, never a 5xx; a 400 stores nothing', async () => {
    const { completes } = await fieldedGroup();
    const field = fc.oneof(fc.constantFrom(...completes.map((c) => c.rid), '21', '29', '99', '', ' ', 'x,y', '"q"'), fc.string({ maxLength: 12 }));
    const line = fc.array(field, { minLength: 0, maxLength: 3 }).map((fields) => fields.join(','));
    const body = fc.tuple(fc.array(line, { maxLength: 6 }), fc.constantFrom('\n', '\r\n', '\r')).map(([lines, eol]) => lines.join(eol));
    await fc.assert(
      fc.asyncProperty(body, fc.option(fc.string({ maxLength: 20 }), { nil: null }), fc.constantFrom('text/csv', 'application/csv', 'text/plain', 'application/json'), async (text, name, type) => {
        // Requests already accepted may complete meanwhile: a refusal adds none.
        const before = Object.keys(await reconcileRecords()).sort();
        const res = await post(text, { name, contentType: type });
        expect([202, 400], res.text).toContain(res.status);
        if (res.status === 400) {
          expect(res.body).toMatchObject({ id: expect.any(String), object: 'bad_request_error', detail: expect.any(String) });
          expect(Object.keys(await reconcileRecords()).sort()).toEqual(before);
        }
      }),
      { numRuns: 60, seed: 36 },
    );
  });

  it('CRLF lines, spaces around the fields and application/csv are read; a last line without a line end too', async () => {
    const { tg, completes } = await fieldedGroup();
    const res = await post(`${completes[0].rid},21\r\n${completes[1].rid}, 22\r\n ${completes[2].rid} ,23`, { contentType: 'application/csv; charset=utf-8' });
    expect(res.status, res.text).toBe(202);
    expect((await finished(res.body.request_id)).body).toMatchObject({ submitted_count: 3, negative_reversed_count: 3, invalid_count: 0 });
    const statuses = await rids(tg.id);
    for (const c of completes.slice(0, 3)) expect(statuses.find((r) => r.rid === c.rid)?.status).toBe('Terminate');
    // A RID twice in one file: the second is invalid (no longer a complete).
    const twice = await post(csv([`${completes[3].rid},21`, `${completes[3].rid},22`]));
    expect((await finished(twice.body.request_id)).body).toMatchObject({ negative_reversed_count: 1, invalid_count: 1 });
  });

  it('at most 100,000 rows: 100,000 are taken, 100,001 refused with the reference\'s error object', async () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')},21`);
    const full = await post(csv(lines));
    expect(full.status, full.text.slice(0, 300)).toBe(202);
    const over = await post(csv([...lines, '00000000-0000-4000-8000-999999999999,21']));
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), object: 'bad_request_error', detail: expect.any(String), invalid_params: [{ name: 'body', reason: expect.stringMatching(/100001 rows; at most 100000/) }] });
    const done = await finished(full.body.request_id);
    expect(done.body).toMatchObject({ submitted_count: 100_000, invalid_count: 100_000, negative_reversed_count: 0 });
    expect(Object.keys(await reconcileRecords())).toEqual([full.body.request_id]);
  }, 60_000);

  it('Idempotency-Key: the same key and file answer the same request again; the same key with another file is refused (422 idempotency_key_reused)', async () => {
    const { completes } = await fieldedGroup();
    const file = csv([`${completes[0].rid},21`]);
    const first = await post(file, { key: 'recon-key-1' });
    expect(first.status).toBe(202);
    const replay = await post(file, { key: 'recon-key-1' });
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const conflict = await post(csv([`${completes[1].rid},21`]), { key: 'recon-key-1' });
    expect(conflict.status).toBe(422);
    expect(conflict.body.object).toBe('idempotency_key_reused');
    const otherName = await post(file, { key: 'recon-key-1', name: 'other.csv' });
    expect(otherName.status).toBe(422);
    expect(Object.keys(await reconcileRecords())).toEqual([first.body.request_id]);
    await finished(first.body.request_id);
    expect((await rids(completes[1].target_group_id)).find((r) => r.rid === completes[1].rid)?.status).toBe('Complete');
  });

  it('approved RIDs of a project: the listed completes stay, every other complete of the project is reversed and listed in remaining-project-completes', async () => {
    const { tg, project, tgPath } = await fieldedGroup();
    const other = await fieldedGroup();
    const completes = await rids(tg.id, 'Complete');
    const keep = completes.slice(0, 2).map((c) => c.rid);
    const path = `${P()}/projects/${project.id}/reconciliations/completes?name=approved.csv`;
    const res = await api.req('POST', path, { raw: csv([...keep, other.completes[0].rid]), contentType: 'text/csv' });
    expect(res.status, res.text).toBe(202);
    const done = await finished(res.body.request_id);
    expect(done.body).toMatchObject({ submission_type: 'approved_rids', submitted_count: 3, positive_reversed_count: 2, negative_reversed_count: completes.length - 2, invalid_count: 1, expired_count: 0 });
    const after = await rids(tg.id);
    expect(after.filter((r) => r.status === 'Complete').map((r) => r.rid).sort()).toEqual([...keep].sort());
    const remaining = await api.req('GET', `${RECON}/${res.body.request_id}/downloads/remaining-project-completes`);
    expect(remaining.status).toBe(200);
    expect(remaining.text.split('\r\n').filter(Boolean).sort()).toEqual(completes.slice(2).map((c) => c.rid).sort());
    expect((await api.req('GET', `${tgPath}/performance`)).body.completes).toBe(2);
    // The other project's complete was not touched.
    expect((await rids(other.tg.id)).find((r) => r.rid === other.completes[0].rid)?.status).toBe('Complete');
    // A project outside the account, and a RID,code line (this file takes one RID a line): 400.
    const foreign = await api.req('POST', `${P()}/projects/01ZZZZZZZZZZZZZZZZZZZZZZZZ/reconciliations/completes?name=x.csv`, { raw: csv([keep[0]]), contentType: 'text/csv' });
    expect(paramNames(foreign)).toEqual(['project_id']);
    expect(paramNames(await api.req('POST', path, { raw: csv([`${keep[0]},21`]), contentType: 'text/csv' }))).toEqual(['line 1']);
  });

  it('the list: the account\'s requests in submission order with their result counts, filtered by name and status, paged; another account sees none', async () => {
    const { completes } = await fieldedGroup();
    const ids: string[] = [];
    for (const [i, name] of ['a.csv', 'b.csv', 'a.csv'].entries()) {
      const res = await post(csv([`${completes[i].rid},21`]), { name });
      ids.push(res.body.request_id);
      await finished(res.body.request_id);
    }
    const list = await api.req('GET', RECON);
    expect(list.status, list.text).toBe(200);
    expect(list.body.reconciliation_requests.map((r: { id: string }) => r.id)).toEqual(ids);
    expect(list.body.reconciliation_requests[0]).toEqual({
      id: ids[0], name: 'a.csv', submitted_at: expect.any(String), status: 'complete', submission_type: 'rejected_rids',
      result_counts: { submitted: 1, expired: 0, invalid: 0, total_reversed: 1, positive_reversed: 0, negative_reversed: 1 },
    });
    expect((await api.req('GET', `${RECON}?name=a.csv`)).body.reconciliation_requests.map((r: { id: string }) => r.id)).toEqual([ids[0], ids[2]]);
    expect((await api.req('GET', `${RECON}?status=processing`)).body.reconciliation_requests).toEqual([]);
    expect(paramNames(await api.req('GET', `${RECON}?status=done`))).toEqual(['status']);
    const first = await api.req('GET', `${RECON}?page_size=2`);
    expect(first.body.reconciliation_requests).toHaveLength(2);
    expect(first.body.page_size).toBe(2);
    const second = await api.req('GET', `${RECON}?page_size=2&start_after=${first.body.next_cursor}`);
    expect(second.body.reconciliation_requests.map((r: { id: string }) => r.id)).toEqual([ids[2]]);
    expect(second.body.next_cursor).toBeNull();
    expect(paramNames(await api.req('GET', `${RECON}?page_size=101`))).toEqual(['page_size']);
    expect((await api.req('GET', `${P(1002)}/reconciliations`)).body.reconciliation_requests).toEqual([]);
    expect((await api.req('GET', `${P(1002)}/reconciliations/${ids[0]}`)).status).toBe(404);
  });
});
