// Constants and helpers live once (issue 35): the FNV-1a hash (shared/fnv1a.ts), the study workflow id
// (shared/workflow-ids.ts), the spec's respondent statuses (shared/respondent-status.ts), the latest of several
// times (shared/times.ts), the terminal job statuses (plan/job-timing.ts) and the phase groups
// (plan/phase-groups.ts). A second copy in a runtime folder fails here. The sandbox is left out on purpose: it
// shares no code with the engine (DESIGN.md), so it keeps its own.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fnv1a } from '../../shared/fnv1a';
import { latestTime } from '../../shared/times';
import { studyWorkflowId, targetGroupWorkflowId } from '../../shared/workflow-ids';

const ROOT = path.resolve(import.meta.dirname, '../..');
const RUNTIME = ['shared', 'definitions', 'plan', 'api', 'blobs', 'temporal', 'telemetry', 'notify', 'activities', 'workflows', 'webhooks', 'worker', 'dev', 'client', 'cli'];

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const sources = RUNTIME.flatMap((folder) => sourceFiles(path.join(ROOT, folder))).map((file) => ({
  file: path.relative(ROOT, file),
  text: fs.readFileSync(file, 'utf8'),
}));

/** The files whose text matches `pattern`. */
const filesMatching = (pattern: RegExp) => sources.filter((s) => pattern.test(s.text)).map((s) => s.file);

/** The known second copy that is not ours to remove yet: plan/watch-timing.ts spreadMs (its owner's). */
const FNV_ELSEWHERE: string[] = [];

describe('one definition of each constant and helper', () => {
  it('the FNV-1a offset basis appears in shared/fnv1a.ts only', () => {
    expect(filesMatching(/0x811c9dc5/i).sort()).toEqual(['shared/fnv1a.ts', ...FNV_ELSEWHERE].sort());
  });

  it('the study workflow id is built in shared/workflow-ids.ts only', () => {
    expect(filesMatching(/`study\/\$\{/)).toEqual(['shared/workflow-ids.ts']);
  });

  it('the respondent statuses are listed in shared/respondent-status.ts only', () => {
    expect(filesMatching(/'Complete',\s*'Terminate',\s*'SecurityFailure'/)).toEqual(['shared/respondent-status.ts']);
  });

  it('the terminal job statuses are listed in plan/job-timing.ts only', () => {
    expect(filesMatching(/'Success',\s*'Completed',\s*'Failed'/)).toEqual(['plan/job-timing.ts']);
  });

  it('the launched and watched phase groups are listed in plan/phase-groups.ts only', () => {
    // definitions/ lists the fielding states a file declares (live, paused, completed): a study-format value, not a phase.
    const phaseGroups = filesMatching(/\[\s*'live',\s*'paused',\s*'(completed|scheduled)'\s*\]/).filter((file) => !file.startsWith('definitions/'));
    expect(phaseGroups).toEqual(['plan/phase-groups.ts']);
  });

  it('the helpers keep their values', () => {
    // FNV-1a test vectors (32-bit): the empty string is the offset basis.
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
    expect(studyWorkflowId('acc', 'st')).toBe('study/acc/st');
    expect(targetGroupWorkflowId('acc', 'st', 'tg1')).toBe('study/acc/st/tg/tg1');
    expect(latestTime('2026-01-02T00:00:00Z', undefined, 'not a time', '2026-01-01T00:00:00Z')).toBe('2026-01-02T00:00:00Z');
    expect(latestTime()).toBeUndefined();
  });
});
