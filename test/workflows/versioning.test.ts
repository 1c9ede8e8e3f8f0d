import { describe, expect, it } from 'vitest';
import { safePointDecision } from '../../workflows/versioning';

describe('safePointDecision: when a pinned run continues as new, and onto which build', () => {
  it('stays in the run when nothing asks for a new one', () => {
    expect(safePointDecision({ continueAsNewSuggested: false, targetVersionChanged: false, busy: false })).toEqual({ continueAsNew: false });
  });

  it('moves to the target build when a new build is current and nothing is in flight', () => {
    expect(safePointDecision({ continueAsNewSuggested: false, targetVersionChanged: true, busy: false })).toEqual({ continueAsNew: true, reason: 'new-build', moveToTarget: true });
  });

  it('continues on its own build when only the history is long', () => {
    expect(safePointDecision({ continueAsNewSuggested: true, targetVersionChanged: false, busy: false })).toEqual({ continueAsNew: true, reason: 'history', moveToTarget: false });
  });

  it('a long history and a new build: one continue-as-new, onto the new build', () => {
    expect(safePointDecision({ continueAsNewSuggested: true, targetVersionChanged: true, busy: false })).toEqual({ continueAsNew: true, reason: 'new-build', moveToTarget: true });
  });

  it('never continues while the loop is busy (a revision waits to be applied), whatever the server suggests', () => {
    for (const continueAsNewSuggested of [false, true]) {
      for (const targetVersionChanged of [false, true]) {
        expect(safePointDecision({ continueAsNewSuggested, targetVersionChanged, busy: true })).toEqual({ continueAsNew: false });
      }
    }
  });
});
