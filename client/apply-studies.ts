// Apply as one call, for programs that drive studyflow without a terminal (bench/, scripts/soak.ts): prepare,
// submit and follow through the study client, the same calls `studyflow apply` makes, with its exit-code policy.
import path from 'node:path';
import { formatDiagnostic } from '../definitions';
import { StudyClientError } from './errors';
import { applyExitCode, type Followed } from './follow';
import type { StudyClient } from './study-client';

export interface AppliedStudies {
  /** What `studyflow apply` would exit with: 0, or 1 (a study failed, timed out or was superseded; or not live with requireLive). */
  code: 0 | 1 | 4 | 5;
  studies: Followed[];
  /** The Temporal outage that stopped the wait, if one did. */
  outage?: string;
}

/** Applies the study files under `paths` and follows them until they settle or `timeoutMs` passes. */
export async function applyStudies(
  client: StudyClient,
  paths: string[],
  options: { timeoutMs: number; requireLive?: boolean; gitRevision?: string; allowOutsidePaths?: boolean },
): Promise<AppliedStudies> {
  const { prepared, diagnostics } = await client.prepare(paths, { allowOutsidePaths: options.allowOutsidePaths });
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) throw new StudyClientError(errors.map((d) => formatDiagnostic(d, 'human')).join('\n'));
  if (prepared.length === 0) throw new StudyClientError(`no study files found in ${paths.join(', ')}`);
  const gitRevision = await client.gitRevision(options.gitRevision);
  const submitted = await client.submit(
    prepared.map((p) => ({ ...p, file: path.relative(client.cwd, p.loaded.file) || p.loaded.file })),
    { gitRevision },
  );
  for await (const event of client.follow(submitted, { timeoutMs: options.timeoutMs, progress: false })) {
    if (event.type === 'finished') {
      return { code: applyExitCode(event.studies, options), studies: event.studies, ...(event.outage ? { outage: event.outage } : {}) };
    }
  }
  throw new StudyClientError('following the studies ended without an outcome');
}
