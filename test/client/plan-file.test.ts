// The study client's side of plan files (client/plan-file.ts): a plan file of offline planning is refused; the
// content names each study's file, revision and fingerprints; apply refuses a plan file of another profile or of
// another revision of the file by name (PlanFileMismatchError, exit 1) and one that is cut or edited
// (PlanFileUnreadableError, exit 1); a plan made now that differs stops with StalePlanError (exit 5) naming what.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanFileMismatchError, PlanFileUnreadableError, StalePlanError, checkPlanFileHolds, checkPlanFileMatches, loadPlanFile, planFileContent, savePlanFile } from '../../client/plan-file';
import type { StudiesPlan } from '../../client/plan-studies';
import { prepareStudies, type PreparedStudy } from '../../client/prepare-studies';
import { StudyClientError } from '../../client/errors';
import { planRevision } from '../../plan/pipeline';
import type { ObservedStudy } from '../../plan/types';

const example = fileURLToPath(new URL('../../examples/quickstart/study.yaml', import.meta.url));
const EMPTY: ObservedStudy = { targetGroups: {}, exclusionGroups: {} };
let dir: string;
let prepared: PreparedStudy[];

/** The plan of `prepared` against `observed`, as planStudies gives it (the pipeline both plan and apply run). */
function studiesPlan(observed: ObservedStudy): StudiesPlan {
  return {
    offline: false,
    detailedExitCode: 2,
    studies: prepared.map((p) => {
      const planned = planRevision(p.desired, observed);
      return { ...p, plan: planned.plan, schedule: planned.schedule, program: planned.program, checks: [], observed };
    }),
  };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'studyflow-plan-file-'));
  ({ prepared } = await prepareStudies([example], { STUDYFLOW_BLOB_DIR: path.join(dir, 'blobs') }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('client plan files', () => {
  it('writes what it planned and reads it back; refuses an offline plan', () => {
    const content = planFileContent(studiesPlan(EMPTY), { cwd: path.dirname(example), profile: 'sandbox', scope: { only: ['us'], except: [] } });
    expect(content.studies[0]).toMatchObject({ file: 'study.yaml', revision: prepared[0].desired.revision, studyId: prepared[0].desired.studyId });
    expect(content.scope).toEqual({ only: ['us'], except: [] });
    expect(Object.values(content.studies[0].fingerprints).every((f) => f === 'absent')).toBe(true);
    const file = path.join(dir, 'plan.sfplan');
    savePlanFile(file, content);
    expect(loadPlanFile(file)).toEqual(content);
    expect(() => planFileContent({ ...studiesPlan(EMPTY), offline: true }, { cwd: dir, profile: 'sandbox' })).toThrow(StudyClientError);
  });

  it('refuses another profile, another revision of the file, and a cut file by name with exit 1', async () => {
    const content = planFileContent(studiesPlan(EMPTY), { cwd: path.dirname(example), profile: 'sandbox' });
    expect(() => checkPlanFileMatches(content, prepared, 'sandbox', 'plan.sfplan')).not.toThrow();
    const refusal = (run: () => void) => {
      try {
        run();
      } catch (error) {
        return error as StudyClientError;
      }
      throw new Error('not refused');
    };
    const profile = refusal(() => checkPlanFileMatches(content, prepared, 'cint', 'plan.sfplan'));
    expect(profile).toBeInstanceOf(PlanFileMismatchError);
    expect(profile.exitCode).toBe(1);
    expect(profile.message).toBe('plan.sfplan: planned against profile sandbox, the settings now choose cint; nothing was written');
    const other = { ...content, studies: content.studies.map((s) => ({ ...s, revision: 'r-older' })) };
    const revision = refusal(() => checkPlanFileMatches(other, prepared, 'sandbox', 'plan.sfplan'));
    expect(revision).toBeInstanceOf(PlanFileMismatchError);
    expect(revision.message).toBe(`plan.sfplan: planned revision r-older of study.yaml, the file is now revision ${prepared[0].desired.revision}; nothing was written: plan again`);
    const cut = path.join(dir, 'cut.sfplan');
    savePlanFile(cut, content);
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(cut, 'utf8');
    await writeFile(cut, text.slice(0, 200));
    const unreadable = refusal(() => loadPlanFile(cut));
    expect(unreadable).toBeInstanceOf(PlanFileUnreadableError);
    expect(unreadable.exitCode).toBe(1);
  });

  it('holds when nothing moved; stops with exit 5 naming what moved when the exchange holds the project now', () => {
    const content = planFileContent(studiesPlan(EMPTY), { cwd: path.dirname(example), profile: 'sandbox' });
    expect(() => checkPlanFileHolds(content, studiesPlan(EMPTY), 'plan.sfplan')).not.toThrow();
    const now: ObservedStudy = { ...EMPTY, project: { id: 'p-1', fields: { name: 'made by hand' } } };
    let stale: StalePlanError | undefined;
    try {
      checkPlanFileHolds(content, studiesPlan(now), 'plan.sfplan');
    } catch (error) {
      stale = error as StalePlanError;
    }
    expect(stale).toBeInstanceOf(StalePlanError);
    expect(stale?.exitCode).toBe(5);
    expect(stale?.moved.map((m) => m.resource)).toEqual(['project']);
    expect(stale?.message.split('\n')[0]).toBe('plan.sfplan: the exchange changed since the plan (project); nothing was written: plan again');
    expect(stale?.drift[0]).toMatch(/^project: absent when planned, now sha256:[0-9a-f]{64}$/);
  });
});
