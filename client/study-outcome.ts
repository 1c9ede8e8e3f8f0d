// What a settled study's status says beyond its phase, for apply's exit code (follow.ts) and the views that render
// it (cli/status-view.ts). Types only: the views of commands that load no Temporal package (validate) import it.
import type { StudyStatus } from '../workflows/messages';

/**
 * The target groups of a settled study that their launch gate holds (phase `gate_blocked`): the launch the file
 * asks for was not made. The study's phase says `converged` over them (nothing failed); apply does not.
 */
export function gateBlockedOf(status: StudyStatus | undefined): StudyStatus['targetGroups'][string][] {
  if (status?.phase === 'applying' || status?.phase === 'planning') return [];
  return Object.values(status?.targetGroups ?? {})
    .filter((t) => t.phase === 'gate_blocked')
    .sort((a, b) => a.key.localeCompare(b.key));
}

/** A soft launch's state as one line (plan/soft-launch.ts, pure: no Temporal package), for status, apply and approve. */
export { softLaunchStatusText } from '../plan/soft-launch';
