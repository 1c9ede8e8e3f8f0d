// The report of a target group a guard holds paused (issue 35): the HTML page (and the JSON) show each trip with
// its evidence (the guard, the value, the threshold, when) and the `studyflow approve --resume` that resumes it.
import { describe, expect, it } from 'vitest';
import { renderReportHtml } from '../../cli/report-html';
import { buildReportView } from '../../client/report-model';
import type { StudyReport, TargetGroupStatus } from '../../workflows/messages';

const AT = '2026-03-02T12:09:00.000Z';
const TEXT = 'incidence 0.05 is below 0.3 (0.5 of the expected 0.6) after 412 entrants';

function held(patch: Partial<TargetGroupStatus> = {}): TargetGroupStatus {
  return {
    key: 'us',
    phase: 'paused',
    targetGroupId: 'tg_us',
    events: { received: 0, sessionsByStatus: {} },
    updatedAt: AT,
    guards: {
      states: [{ guard: 'low_incidence', kind: 'incidence_below', action: 'pause', state: 'tripped', detail: TEXT }],
      active: [{ guard: 'low_incidence', kind: 'incidence_below', action: 'pause', at: AT, value: 0.05, threshold: 0.3, unit: 'rate', source: 'performance', figures: { entrants: 412 }, text: TEXT }],
      hold: { guards: [{ guard: 'low_incidence', kind: 'incidence_below', definition: '{}', at: AT, text: TEXT }] },
      trips: 1,
    },
    ...patch,
  };
}

const report = (status: TargetGroupStatus): StudyReport => ({ studyId: 'acme', accountId: '1001', phase: 'converged', updatedAt: AT, targetGroups: { us: { status } } });

describe('a guard hold in the report', () => {
  it('the model carries each trip with its evidence and the resume command', () => {
    const tg = buildReportView(report(held()), 'study/1001/acme', AT).targetGroups[0];
    expect(tg.guardHold).toEqual({
      trips: [{ guard: 'low_incidence', kind: 'incidence_below', at: AT, value: 0.05, threshold: 0.3, unit: 'rate', currency: null, text: TEXT }],
      resume: 'studyflow approve --resume acme --account 1001 --target-group us',
    });
  });

  it('the HTML page shows the guard, the value, the threshold and the approve --resume hint', () => {
    const html = renderReportHtml(buildReportView(report(held()), 'study/1001/acme', AT));
    const section = /<div class="note guard-hold" data-key="us">[\s\S]*?<\/div>/.exec(html)?.[0] ?? '';
    expect(section).toContain('Paused by a guard');
    expect(section).toMatch(/<tr data-guard="low_incidence"><th>low_incidence<\/th><td>incidence_below<\/td><td class="guard-value">0\.05<\/td><td class="guard-threshold">0\.3<\/td>/);
    expect(section).toContain(TEXT);
    expect(section).toContain('<code>studyflow approve --resume acme --account 1001 --target-group us</code>');
  });

  it('nothing of the kind without a hold (live, or resumed: the trips acknowledged)', () => {
    const live = held({ phase: 'live', guards: { states: [], active: [], trips: 1, resumed: { by: 'ana', at: AT, guards: ['low_incidence'] } } });
    const view = buildReportView(report(live), 'study/1001/acme', AT);
    expect(view.targetGroups[0].guardHold).toBeNull();
    expect(renderReportHtml(view)).not.toContain('guard-hold');
  });
});
