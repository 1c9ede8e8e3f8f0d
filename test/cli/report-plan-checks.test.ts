// The plan's server checks on the CLI side: failure reasons, supplier ids from the environment, and
// the checks section of the human, markdown and GitHub plans.
import { describe, expect, it } from 'vitest';
import { failureFromAnswer, failureFromTransportError } from '../../api/http/errors';
import { Output } from '../../cli/output';
import { failureReason, isUnreachable } from '../../client/plan-checks';
import { renderPlanGithub, renderPlanHuman, renderPlanMarkdown, type ServerChecksView } from '../../cli/plan-view';
import type { StudyPlan } from '../../plan/types';

const call = { method: 'POST', path: '/v1/demand/accounts/1001/target-groups/calculate-feasibility' };

describe('failure reasons', () => {
  it('names the status, the API error object, the detail and the invalid params', () => {
    const failure = failureFromAnswer({ status: 422, headers: {}, body: { object: 'unsupported_locale', detail: 'no panel', invalid_params: [{ name: 'locale', reason: 'unsupported' }] } }, call);
    expect(failureReason(failure)).toBe('HTTP 422 unsupported_locale: no panel (locale: unsupported)');
    expect(isUnreachable(failure)).toBe(false);
  });

  it('names a transport failure by its type, and knows it as unreachable', () => {
    const failure = failureFromTransportError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), call);
    expect(failureReason(failure)).toBe('network_error: connect ECONNREFUSED 127.0.0.1:1');
    expect(isUnreachable(failure)).toBe(true);
  });

  it('keeps one line of anything else, bounded', () => {
    expect(failureReason(new Error('first\nsecond'))).toBe('first');
    expect(failureReason(new Error('x'.repeat(1000))).length).toBe(300);
  });
});

describe('the checks section of the plan', () => {
  const plan: StudyPlan = { studyId: 's', revision: 'r1', hasChanges: true, actions: [{ kind: 'create', resource: 'project', key: 's', reason: 'new project' }] };
  const server: ServerChecksView = {
    checks: [
      {
        key: 'us',
        blocking: true,
        checks: [
          { name: 'profiles', outcome: 'pass', summary: 'valid: 1 profile (2 targets)', details: ['profile gender (regular)'] },
          { name: 'price', outcome: 'blocking', summary: 'predicted CPI 2.65 USD', reason: 'predicted CPI 2.65 USD is above max_cpi 1.00 (max_cpi)' },
          { name: 'calendar', outcome: 'unavailable', summary: 'unavailable: HTTP 401 unauthorized' },
          { name: 'supplier_distribution', outcome: 'skipped', summary: 'no profiles to distribute' },
        ],
      },
      { key: 'de', blocking: false, checks: [{ name: 'profiles', outcome: 'skipped', summary: 'already live' }, { name: 'price', outcome: 'skipped', summary: 'already live' }] },
    ],
  };

  it('lists each check for people, BLOCKING with its reason, a fully skipped target group on one line', () => {
    const text = renderPlanHuman(new Output({ stdout: process.stdout, stderr: process.stderr }, { NO_COLOR: '1' }), 'title', plan, undefined, server);
    expect(text.split('\n').slice(2)).toEqual([
      'Plan: 1 to create.',
      'Server checks: 1 blocking, 1 unavailable, 1 passed, 3 skipped.',
      '  us (BLOCKING)',
      '    ✓ profiles: valid: 1 profile (2 targets)',
      '        profile gender (regular)',
      '    ✗ price: BLOCKING: predicted CPI 2.65 USD is above max_cpi 1.00 (max_cpi)',
      '        predicted CPI 2.65 USD',
      '    ? calendar: unavailable: HTTP 401 unauthorized',
      '    - supplier distribution: skipped: no profiles to distribute',
      '  de: skipped: already live',
    ]);
    expect(renderPlanHuman(new Output({ stdout: process.stdout, stderr: process.stderr }, { NO_COLOR: '1' }), 'title', plan, undefined, { checks: [], note: 'skipped (offline)' })).toContain('\nServer checks: skipped (offline)');
  });

  it('tables them in markdown and annotates the blocking and unavailable ones for GitHub', () => {
    const markdown = renderPlanMarkdown([{ title: 't', plan, server }]);
    expect(markdown).toContain('#### Server checks: 1 blocking, 1 unavailable, 1 passed, 3 skipped');
    expect(markdown).toContain('| us | price | ⛔ **BLOCKING** | predicted CPI 2.65 USD is above max_cpi 1.00 (max_cpi)<br>predicted CPI 2.65 USD |');
    expect(markdown).toContain('| us | profiles | ✅ pass | valid: 1 profile (2 targets)<br>profile gender (regular) |');
    const github = renderPlanGithub([{ file: 'a.yaml', title: 't', plan, server }]).split('\n');
    expect(github.slice(1)).toEqual([
      '::warning file=a.yaml,title=BLOCKING price us::predicted CPI 2.65 USD is above max_cpi 1.00 (max_cpi)',
      '::notice file=a.yaml,title=unavailable calendar us::unavailable: HTTP 401 unauthorized',
    ]);
  });
});
