// The views of changes apply did not make (issue 28): the human lines, the phase text that no longer says
// `converged`, and the GitHub annotations and step summary.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { applyAnnotations, applySummaryMarkdown } from '../../cli/github-view';
import { Output } from '../../cli/output';
import { studyPhaseText, unappliedLines } from '../../cli/status-view';
import type { StudyStatus } from '../../workflows/messages';

const sink = () => new Writable({ write: (_chunk, _enc, done) => done() });
const out = new Output({ stdout: sink(), stderr: sink() }, { NO_COLOR: '1' });

const status = (unapplied?: StudyStatus['unapplied']): StudyStatus => ({
  studyId: 'demo',
  accountId: '1001',
  phase: 'converged',
  writes: 2,
  targetGroups: { us: { key: 'us', phase: 'live', events: { received: 0, sessionsByStatus: {} }, updatedAt: '2026-11-25T00:00:00Z' } },
  exclusionGroups: {},
  updatedAt: '2026-11-25T00:00:00Z',
  ...(unapplied ? { unapplied } : {}),
});
const UNAPPLIED: NonNullable<StudyStatus['unapplied']> = [
  { targetGroup: 'us', field: 'locale', reason: 'blocked', detail: 'locale cannot change after the launch: fixed at creation' },
  { targetGroup: 'us', field: 'filling_goal', reason: 'gate_refused', detail: 'raising filling_goal 200 -> 900: infeasible' },
];

describe('changes not applied', () => {
  it('the human view names each target group, field and reason, and does not say converged', () => {
    expect(studyPhaseText(status())).toBe('converged');
    expect(studyPhaseText(status(UNAPPLIED))).toBe('not converged: 2 change(s) not applied');
    expect(unappliedLines(out, status())).toEqual([]);
    expect(unappliedLines(out, status(UNAPPLIED))).toEqual([
      '2 change(s) not applied:',
      '  us locale: blocked: locale cannot change after the launch: fixed at creation',
      '  us filling_goal: gate refused: raising filling_goal 200 -> 900: infeasible',
    ]);
  });

  it('the GitHub view adds an error per change and a table to the step summary', () => {
    const applied = [{ file: 'study.yaml', workflowId: 'study/1001/demo', outcome: 'settled', status: status(UNAPPLIED) }];
    const annotations = applyAnnotations(applied, false);
    expect(annotations[0]).toMatch(/^::notice .*::not converged: 2 change\(s\) not applied: 1 of 1 target group\(s\) live/);
    expect(annotations.filter((a) => a.startsWith('::error'))).toEqual([
      expect.stringMatching(/^::error file=study\.yaml,title=not applied%3A us locale::blocked: locale cannot change/),
      expect.stringMatching(/^::error file=study\.yaml,title=not applied%3A us filling_goal::gate refused: raising filling_goal/),
    ]);
    const summary = applySummaryMarkdown(applied);
    expect(summary).toContain('❌ **2 change(s) not applied**');
    expect(summary).toContain('| us | `locale` | blocked | locale cannot change after the launch: fixed at creation |');
    expect(applyAnnotations([{ ...applied[0], status: status() }], false).filter((a) => a.startsWith('::error'))).toEqual([]);
  });
});
