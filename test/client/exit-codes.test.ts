// The exit codes a CI step branches on, decided from structured data (issue 35): `plan --detailed-exitcode`
// answers 3 over a server check whose outcome is `blocking` (the launch gate will hold), and `apply` answers 4,
// and does not say `converged`, when a settled study has a target group its launch gate holds (`gate_blocked`).
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { APPLY_EXIT, applyExitCode, type Followed } from '../../client';
import { applyAnnotations } from '../../cli/github-view';
import { Output } from '../../cli/output';
import { studyPhaseText, unappliedLines } from '../../cli/status-view';
import { PLAN_EXIT, planExitCode } from '../../plan/exit-code';
import type { ServerCheck, TargetGroupChecks } from '../../plan/server-checks';
import type { StudyPlan } from '../../plan/types';
import type { StudyStatus, TargetGroupPhase } from '../../workflows/messages';

const sink = () => new Writable({ write: (_chunk, _enc, done) => done() });
const out = new Output({ stdout: sink(), stderr: sink() }, { NO_COLOR: '1' });

describe('plan --detailed-exitcode and the server checks', () => {
  const noChanges: StudyPlan = { studyId: 's', revision: 'r', actions: [{ kind: 'none', resource: 'project', key: 's', reason: 'match' }], hasChanges: false };
  const pending: StudyPlan = { ...noChanges, actions: [{ kind: 'create', resource: 'target_group', key: 'us', reason: 'new' }], hasChanges: true };
  const check = (outcome: ServerCheck['outcome'], summary: string, reason?: string): ServerCheck => ({ name: 'price', outcome, summary, ...(reason ? { reason } : {}) });
  const group = (key: string, ...checks: ServerCheck[]): TargetGroupChecks => ({ key, blocking: checks.some((c) => c.outcome === 'blocking'), checks });

  it('a blocking check makes it 3, over pending changes', () => {
    const blocking = group('us', check('pass', 'valid'), check('blocking', '4.10 EUR', 'suggested price is in USD, max_cpi in EUR'));
    expect(planExitCode([pending], [blocking])).toBe(PLAN_EXIT.blocked);
    expect(planExitCode([noChanges], [group('de'), blocking])).toBe(PLAN_EXIT.blocked);
  });

  it('decides from the outcome field, never from the words of the line', () => {
    // A warning whose text says BLOCKING is a warning; a blocking check whose text says nothing of it blocks.
    expect(planExitCode([pending], [group('us', check('warning', 'BLOCKING: suggested price is in USD, max_cpi in EUR'))])).toBe(PLAN_EXIT.pending);
    expect(planExitCode([noChanges], [group('us', check('blocking', 'x'))])).toBe(PLAN_EXIT.blocked);
  });

  it('checks that pass, warn, are unavailable or skipped change nothing', () => {
    const quiet = group('us', check('pass', 'ok'), check('warning', 'w'), check('unavailable', 'unavailable: HTTP 503'), check('skipped', 'offline'));
    expect(planExitCode([noChanges], [quiet])).toBe(PLAN_EXIT.none);
    expect(planExitCode([pending], [quiet])).toBe(PLAN_EXIT.pending);
    expect(planExitCode([pending])).toBe(PLAN_EXIT.pending);
  });
});

describe('apply and a target group its launch gate holds', () => {
  const tg = (key: string, phase: TargetGroupPhase, message?: string) => ({ key, phase, ...(message ? { message } : {}), events: { received: 0, sessionsByStatus: {} }, updatedAt: '2026-11-25T00:00:00Z' });
  const status = (phase: StudyStatus['phase'], ...groups: ReturnType<typeof tg>[]): StudyStatus => ({
    studyId: 'demo',
    accountId: '1001',
    phase,
    writes: 2,
    targetGroups: Object.fromEntries(groups.map((g) => [g.key, g])),
    exclusionGroups: {},
    updatedAt: '2026-11-25T00:00:00Z',
  });
  const followed = (s: StudyStatus, outcome: Followed['outcome'] = 'settled'): Followed => ({ file: 'study.yaml', workflowId: 'study/1001/demo', revision: 'r1', status: s, outcome });
  const HELD = 'price 4.10 EUR: suggested price is in USD, max_cpi in EUR';

  it('exits 4 when the only target group ends gate_blocked, and 0 when it is live', () => {
    expect(applyExitCode([followed(status('converged', tg('us', 'gate_blocked', HELD)))], {})).toBe(APPLY_EXIT.unapplied);
    expect(applyExitCode([followed(status('converged', tg('us', 'live')))], {})).toBe(APPLY_EXIT.ok);
    // A failure (1) wins, as over any change not made; a study still applying decides nothing yet.
    expect(applyExitCode([followed(status('partially_failed', tg('us', 'gate_blocked', HELD), tg('de', 'failed')))], {})).toBe(APPLY_EXIT.failed);
    expect(applyExitCode([followed(status('converged', tg('us', 'gate_blocked', HELD)), 'detached')], {})).toBe(APPLY_EXIT.ok);
  });

  it('says not converged and names the held target group with why', () => {
    const held = status('converged', tg('de', 'live'), tg('us', 'gate_blocked', HELD));
    expect(studyPhaseText(held)).toBe('not converged: 1 target group(s) gate-blocked (us)');
    expect(studyPhaseText({ ...held, unapplied: [{ targetGroup: 'de', field: 'locale', reason: 'blocked', detail: 'fixed' }] })).toBe(
      'not converged: 1 change(s) not applied, 1 target group(s) gate-blocked (us)',
    );
    expect(unappliedLines(out, held)).toEqual(['1 launch(es) held by the launch gate:', `  us launch: gate blocked: ${HELD}`]);
    expect(studyPhaseText(status('converged', tg('us', 'live')))).toBe('converged');
    const annotations = applyAnnotations([{ file: 'study.yaml', workflowId: 'study/1001/demo', outcome: 'settled', status: held }], false);
    expect(annotations[0]).toMatch(/^::notice .*::not converged: 1 target group\(s\) gate-blocked \(us\)/);
    expect(annotations.filter((a) => a.startsWith('::error'))).toEqual([expect.stringMatching(/^::error file=study\.yaml,title=target group us is gate_blocked::price 4\.10 EUR/)]);
  });
});
