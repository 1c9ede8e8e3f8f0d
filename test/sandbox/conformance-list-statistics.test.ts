// Reference: get_list_target_groups, TargetGroupsListItem.statistics (TargetGroupStatistics: progress,
// last_complete_date, average_cost_per_interview, incidence_rate, drop_off_rate, each {value, issues}).
// The list is read the way studyflow's study watch reads it: the figures so far, the simulation run up to now.
import { describe, expect, it } from 'vitest';
import { READ_STALENESS_MS } from '../../sandbox/routes/reporting-fielding-simulation';
import { useTestSandbox } from '../fixtures/sandbox';
import { P } from './sandbox-test-client';

const { api } = useTestSandbox({ resetBeforeEach: true, faultsBeforeEach: { job_duration_ms: 20 } });

async function liveGroup() {
  const made = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s', locale: 'en_US', filling_goal: 10_000 });
  const launch = await api.req('POST', `${made.tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
  expect(launch.status, launch.text).toBe(201);
  await api.waitForJob(launch.headers.get('location')!);
  return made;
}

describe('get_list_target_groups › statistics', () => {
  it('carries the figures performance gives: progress, last complete, average cost per interview, incidence and drop-off', async () => {
    const { project, tg, tgPath } = await liveGroup();
    expect((await api.admin('POST', '/fielding/advance', { minutes: 20 })).status).toBe(200);
    // Slowed right down, so the two reads below see the same sessions.
    expect((await api.admin('PUT', '/fielding/settings', { speed: 0.001 })).status).toBe(200);
    const list = await api.req('GET', `${P()}/projects/${project.id}/target-groups`);
    expect(list.status, list.text).toBe(200);
    const [item] = list.body.target_groups;
    const performance = (await api.req('GET', `${tgPath}/performance`)).body;
    expect(performance.completes).toBeGreaterThan(0);
    expect(item).toMatchObject({ id: tg.id, status: 'live' });
    expect(item.statistics.progress).toEqual({ value: { current_completes: performance.completes, current_prescreens: expect.any(Number), filling_goal: 10_000, filling_strategy: 'completes' }, issues: [] });
    expect(item.statistics.last_complete_date).toEqual({ value: performance.last_complete, issues: [] });
    expect(item.statistics.incidence_rate).toEqual({ value: performance.incidence_rate, issues: [] });
    expect(item.statistics.drop_off_rate).toEqual({ value: performance.drop_off_rate, issues: [] });
    // The average of the completes' costs: completes_cost over completes, to the cent.
    const average = Number(item.statistics.average_cost_per_interview.value.value);
    expect(item.statistics.average_cost_per_interview).toMatchObject({ value: { currency_code: 'USD' }, issues: [] });
    expect(Math.abs(average * performance.completes - Number(performance.completes_cost.value))).toBeLessThanOrEqual(performance.completes * 0.005 + 1e-9);
  });

  it('runs the simulation up to now before it answers (no other read in between), and leaves out what a draft has not', async () => {
    const { project, tg } = await liveGroup();
    const draft = await api.createTargetGroup(project.id, {});
    const before = (await api.req('GET', `${P()}/projects/${project.id}/target-groups`)).body.target_groups;
    const completesBefore = before.find((t: { id: string }) => t.id === tg.id).statistics.progress.value.current_completes;
    // Simulated time moves on (fast: speed 100,000) while nothing else is read: the list alone runs the simulation.
    expect((await api.admin('PUT', '/fielding/settings', { speed: 100_000 })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, READ_STALENESS_MS + 200));
    const after = (await api.req('GET', `${P()}/projects/${project.id}/target-groups`)).body.target_groups;
    expect(after.find((t: { id: string }) => t.id === tg.id).statistics.progress.value.current_completes).toBeGreaterThan(completesBefore);
    const draftItem = after.find((t: { id: string }) => t.id === draft.id);
    expect(Object.keys(draftItem.statistics)).toEqual(['progress']);
  });

  it('answers a read within READ_STALENESS_MS of the last run from that run (one run a second, however many reads)', async () => {
    const { project, tg } = await liveGroup();
    const completes = async () =>
      (await api.req('GET', `${P()}/projects/${project.id}/target-groups`)).body.target_groups.find((t: { id: string }) => t.id === tg.id).statistics.progress.value.current_completes as number;
    expect((await api.admin('POST', '/fielding/advance', { minutes: 1 })).status).toBe(200);
    // Arrivals fast enough that any run of the simulation adds completes: the reads right after the advance do not run it.
    expect((await api.admin('PUT', '/fielding/settings', { speed: 100_000 })).status).toBe(200);
    const first = await completes();
    expect(await completes()).toBe(first);
    await new Promise((resolve) => setTimeout(resolve, READ_STALENESS_MS + 200));
    expect(await completes()).toBeGreaterThan(first);
  });
});
