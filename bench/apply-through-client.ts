// Applies study files in this process through the study client (client/), as `studyflow apply --json` does,
// minus Node's start-up and the rendering: prepare, submit, follow, with apply's exit-code policy.
import { applyStudies, withStudyClient, type AppliedStudies } from '../client';

/** Applies `paths` with the environment `env` added to this process's, following until settled or `timeoutS`. */
export async function applyThroughClient(
  paths: string[],
  env: Record<string, string>,
  options: { requireLive?: boolean; timeoutS?: number } = {},
): Promise<AppliedStudies> {
  const timeoutMs = (options.timeoutS ?? 1800) * 1000;
  return await withStudyClient({ ...process.env, ...env }, process.cwd(), (client) =>
    applyStudies(client, paths, { timeoutMs, requireLive: options.requireLive }),
  );
}

/** One line per study that did not settle well, for an error message. */
export function describeApplied(applied: AppliedStudies): string {
  const lines = applied.studies
    .filter((s) => s.outcome !== 'settled' || s.status?.phase !== 'converged')
    .map((s) => `${s.file}: ${s.outcome}, ${s.status?.phase ?? 'no status'}${s.status?.error ? `: ${s.status.error}` : ''}`);
  if (applied.outage) lines.push(applied.outage);
  return lines.join('\n').slice(0, 1500);
}
