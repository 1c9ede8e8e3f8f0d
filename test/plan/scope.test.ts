// Partial apply (plan/scope.ts, through plan/pipeline.ts planRevision): the target groups in scope are planned,
// scheduled and programmed as in a full apply; those left out keep their actions as `none` with the reason, are
// named as pending (`left_out`), and reach neither the schedule nor the program; the study-level writes the ones in
// scope need stay, and an exclusion group none of them joins is left out.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStudyFile } from '../../definitions';
import { desiredStudyOf } from '../../plan/desired';
import { planRevision } from '../../plan/pipeline';
import { isWrite } from '../../plan/plan-study';
import { inScope, isPartial, scopePlan, unknownScopeKeys } from '../../plan/scope';
import type { DesiredStudy, ObservedStudy } from '../../plan/types';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const EMPTY: ObservedStudy = { targetGroups: {}, exclusionGroups: {} };

async function desiredOf(example: string): Promise<DesiredStudy> {
  const loaded = await loadStudyFile(path.join(REPO_ROOT, 'examples', example, 'study.yaml'));
  if (!loaded.study) throw new Error(`${example} does not load`);
  return desiredStudyOf(loaded.study.study, {});
}

describe('inScope', () => {
  it('takes every target group without a scope, only those named with --target-group, and all but --except', () => {
    expect(isPartial(undefined)).toBe(false);
    expect(isPartial({ only: [], except: [] })).toBe(false);
    expect(inScope(undefined, 'us')).toBe(true);
    expect(inScope({ only: ['us'] }, 'us')).toBe(true);
    expect(inScope({ only: ['us'] }, 'uk')).toBe(false);
    expect(inScope({ except: ['uk'] }, 'us')).toBe(true);
    expect(inScope({ except: ['uk'] }, 'uk')).toBe(false);
    expect(inScope({ only: ['us', 'uk'], except: ['uk'] }, 'uk')).toBe(false);
  });
});

describe('unknownScopeKeys', () => {
  it('names each key no study declares, once', async () => {
    const desired = await desiredOf('multi-country-tracker');
    expect(unknownScopeKeys([desired], { only: ['us_gen_pop'], except: ['de_gen_pop'] })).toEqual([]);
    expect(unknownScopeKeys([desired], { only: ['us', 'us_gen_pop', 'us'], except: ['fr'] })).toEqual(['us', 'fr']);
    expect(unknownScopeKeys([desired], undefined)).toEqual([]);
  });
});

describe('planRevision with a scope', () => {
  it('without a scope is the whole study: the program of every target group, nothing left out', async () => {
    const desired = await desiredOf('multi-country-tracker');
    const whole = planRevision(desired, EMPTY);
    expect(whole.applied).toBe(desired);
    expect(whole.leftOut).toEqual([]);
    expect(planRevision(desired, EMPTY, new Map(), new Set(), {}, { only: [], except: [] })).toEqual(whole);
  });

  it('--target-group us_gen_pop: its actions and the study-level ones it needs; the others none and pending', async () => {
    const desired = await desiredOf('multi-country-tracker');
    const whole = planRevision(desired, EMPTY);
    const scoped = planRevision(desired, EMPTY, new Map(), new Set(), {}, { only: ['us_gen_pop'] });
    expect(scoped.applied.targetGroups.map((t) => t.key)).toEqual(['us_gen_pop']);
    expect(scoped.applied.revision).toBe(desired.revision);
    // Same actions in the same order; only what is left out changed kind.
    expect(scoped.plan.actions.map((a) => [a.resource, a.key])).toEqual(whole.plan.actions.map((a) => [a.resource, a.key]));
    for (const [i, action] of scoped.plan.actions.entries()) {
      const before = whole.plan.actions[i];
      const ofOther = ['uk_gen_pop', 'de_gen_pop'].includes(action.key) && action.resource !== 'project';
      if (ofOther && isWrite(before)) {
        expect(action.kind).toBe('none');
        expect(action.reason).toMatch(/^left out of this apply \(--target-group us_gen_pop\): /);
      } else {
        expect(action.kind).toBe(before.kind);
      }
    }
    // The project and the exclusion group us_gen_pop joins are written with it, and say so.
    const project = scoped.plan.actions.find((a) => a.resource === 'project');
    expect(project?.kind).toBe('create');
    expect(project?.reason).toMatch(/\(applied with us_gen_pop\)$/);
    const group = scoped.plan.actions.find((a) => a.resource === 'exclusion_group' && a.kind === 'create' && a.key === 'acme_trackers');
    expect(group?.reason).toMatch(/\(applied with us_gen_pop\)$/);
    expect(scoped.schedule.project).toBe('create');
    expect(scoped.schedule.exclusionGroups).toEqual(['acme_trackers']);
    expect(scoped.schedule.draftBatches.flat()).toEqual(['us_gen_pop']);
    expect(scoped.schedule.memberships.flatMap((m) => m.add)).toEqual(['us_gen_pop']);
    expect(scoped.program.targetGroups.map((t) => t.key)).toEqual(['us_gen_pop']);
    expect(JSON.stringify(scoped.program.study)).not.toMatch(/uk_gen_pop|de_gen_pop/);
    // Pending: one entry per write left out, each of a target group left out.
    const leftOutWrites = whole.plan.actions.filter((a) => isWrite(a) && ['uk_gen_pop', 'de_gen_pop'].includes(a.key));
    expect(scoped.leftOut).toHaveLength(leftOutWrites.length);
    expect(new Set(scoped.leftOut.map((u) => u.targetGroup))).toEqual(new Set(['uk_gen_pop', 'de_gen_pop']));
    expect(scoped.leftOut.every((u) => u.reason === 'left_out')).toBe(true);
    expect(scoped.plan.hasChanges).toBe(true);
    expect(scoped.plan.notes?.at(-1)?.text).toMatch(/^partial apply: us_gen_pop; the changes of the others stay pending/);
  });

  it('--except: all but the keys named, and an exclusion group none of the applied joins is left out', async () => {
    const desired = await desiredOf('multi-country-tracker');
    const scoped = planRevision(desired, EMPTY, new Map(), new Set(), {}, { except: ['us_gen_pop'] });
    expect(scoped.applied.targetGroups.map((t) => t.key).sort()).toEqual(['de_gen_pop', 'uk_gen_pop']);
    expect(scoped.schedule.draftBatches.flat().sort()).toEqual(['de_gen_pop', 'uk_gen_pop']);

    const lonely: DesiredStudy = { ...desired, exclusionGroups: [{ name: 'us_only', title: 'US only', targetGroups: ['us_gen_pop'] }] };
    const plan = planRevision(lonely, EMPTY).plan;
    expect(plan.actions.some((a) => a.resource === 'exclusion_group' && a.kind === 'create' && a.key === 'us_only')).toBe(true);
    const { plan: scopedPlan, leftOut } = scopePlan(plan, lonely, { except: ['us_gen_pop'] });
    const group = scopedPlan.actions.find((a) => a.resource === 'exclusion_group' && a.key === 'us_only' && a.group === undefined);
    expect(group?.kind).toBe('none');
    expect(leftOut).toContainEqual({ targetGroup: 'us_only', field: 'exclusion_group', reason: 'left_out', detail: 'create exclusion_group: left out of this apply (--except us_gen_pop)' });
  });

  it('a scope that takes every target group changes nothing but the notes and the reasons', async () => {
    const desired = await desiredOf('multi-country-tracker');
    const whole = planRevision(desired, EMPTY);
    const all = planRevision(desired, EMPTY, new Map(), new Set(), {}, { except: ['nobody'] });
    expect(all.schedule).toEqual(whole.schedule);
    expect(all.program).toEqual(whole.program);
    expect(all.leftOut).toEqual([]);
  });
});
