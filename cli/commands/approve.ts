import { userInfo } from 'node:os';
import { withStudyClient } from '../../client';
import type { CliContext } from '../main';
import { CliError } from '../output';
import { closeoutLines } from '../closeout-view';

/** Who resumes: `--by`, else $USER, else the OS user (a resume is always recorded with a name). */
function resumedBy(ctx: CliContext, by: string | undefined): string {
  const named = by?.trim() || ctx.env.USER?.trim();
  if (named) return named;
  try {
    return userInfo().username || 'unknown';
  } catch {
    return 'unknown'; // no passwd entry for the uid (a container)
  }
}

/**
 * `studyflow approve <study> [--target-group KEY]`: approves the launches waiting for approval.
 * `--resume [--by WHO]`: resumes the target groups a guard holds paused instead.
 */
export async function run(
  ctx: CliContext,
  studyArg: string,
  options: { account?: string; targetGroup?: string; json?: boolean; resume?: boolean; by?: string; closeout?: boolean; timeout?: string },
): Promise<number> {
  if (options.closeout && (options.resume || options.targetGroup)) throw new CliError('--closeout approves the study\'s close-out: it takes no --resume or --target-group', 2);
  const timeoutS = Number(options.timeout ?? '600');
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new CliError(`--timeout must be a positive number of seconds, got "${options.timeout}"`, 2);
  if (options.by !== undefined && !options.resume) throw new CliError('--by names who resumes: it goes with --resume', 2);
  if (options.resume && options.by !== undefined && options.by.trim() === '') throw new CliError('--by must name who resumes', 2);
  return await withStudyClient(ctx.env, ctx.cwd, async (client) => {
    const ref = await client.study(studyArg, options);
    if (options.closeout) {
      const status = await client.approveCloseout(ref, timeoutS * 1000);
      const closeout = status.closeout;
      if (options.json) ctx.out.json({ workflowId: ref.workflowId, closeout: closeout ?? null, unapplied: status.unapplied ?? [] });
      else ctx.out.data(closeoutLines(status).join('\n'));
      // Closed: 0; anything short of it (blocked, RIDs not submitted) names itself above and exits 4, as apply does.
      return closeout?.phase === 'closed' && !status.unapplied?.length ? 0 : 4;
    }
    if (options.resume) {
      const by = resumedBy(ctx, options.by);
      const resumed = await client.resumeGuarded(ref, by, options.targetGroup);
      if (options.json) ctx.out.json({ workflowId: ref.workflowId, resumed, by });
      else ctx.out.data(resumed.length ? `resume requested by ${by}: ${resumed.join(', ')}` : 'no target group was held paused by a guard');
      return 0;
    }
    const approved = await client.approve(ref, options.targetGroup);
    if (options.json) ctx.out.json({ workflowId: ref.workflowId, approved });
    else ctx.out.data(approved.length ? `approved: ${approved.join(', ')}` : 'no target group was waiting for approval');
    return 0;
  });
}
