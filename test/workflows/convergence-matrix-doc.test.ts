// docs/workflows.md's convergence matrix is the one test/integration/convergence/matrix.ts declares (issue 35): a new
// state or change kind gets its row or column there, and the docs say so in the same commit.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANGES, STATES, TESTED_ELSEWHERE, cellMark, matrixMarkdown } from '../integration/convergence/matrix';

const DOC = path.resolve(import.meta.dirname, '../../docs/workflows.md');

describe('the convergence matrix in docs/workflows.md', () => {
  it('is the table of test/integration/convergence/matrix.ts', () => {
    const text = fs.readFileSync(DOC, 'utf8');
    const between = /<!-- convergence:start -->\n([\s\S]*?)<!-- convergence:end -->/.exec(text);
    expect(between, 'the convergence:start/end markers').not.toBeNull();
    expect(between?.[1].trim()).toBe(matrixMarkdown());
  });

  it('has a row for every phase a target group settles in, and marks every cell', () => {
    const settled = ['draft', 'gate_blocked', 'awaiting_approval', 'awaiting_completes', 'live', 'failed'];
    for (const phase of settled) expect(STATES.some((s) => s === phase || s.startsWith(`${phase} `)), phase).toBe(true);
    for (const phase of ['scheduled', 'paused', 'completed']) expect(STATES.filter((s) => s.startsWith(`${phase} (`)).length, phase).toBeGreaterThanOrEqual(2);
    for (const state of STATES) for (const change of CHANGES) expect(['tested', 'n/a', 'open']).toContain(cellMark(state, change).kind);
    // Every not-applicable cell says why.
    for (const state of STATES) for (const change of CHANGES) {
      const mark = cellMark(state, change);
      if (mark.kind === 'n/a') expect(mark.why.length, `${state} × ${change}`).toBeGreaterThan(10);
    }
  });

  it('names, for each cell walked by another integration test, a test file that exists and walks that state', () => {
    for (const [mark, file] of Object.entries(TESTED_ELSEWHERE)) {
      const at = path.resolve(import.meta.dirname, '../..', file);
      expect(fs.existsSync(at), `${mark} -> ${file}`).toBe(true);
      const state = mark.split('|')[0];
      const text = fs.readFileSync(at, 'utf8');
      // A soft launch's state as status.softLaunch.state names it.
      const soft: Record<string, string> = {
        'soft launch (running)': "'running'",
        'soft launch (awaiting decision)': 'awaiting_decision',
        'soft launch (failed, paused)': "state).toBe('paused')",
        'soft launch (aborted)': "state: 'aborted'",
        'soft launch (promoted)': "state: 'promoted'",
        'soft launch (analysis only)': 'analysed',
      };
      const words = state === 'closed' ? 'Close-out: closed' : state.startsWith('closing out') ? 'awaiting_approval' : (soft[state] ?? state);
      expect(text, `${file} walks ${state}`).toContain(words);
    }
  });
});
