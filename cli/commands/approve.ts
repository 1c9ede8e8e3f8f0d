import { userInfo } from 'node:os';
import { softLaunchStatusText, withStudyClient } from '../../client';
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
  options: { account?: string; targetGroup?: string; json?: boolean; resume?: boolean; promote?: boolean; abort?: boolean; by?: string; closeout?: boolean; timeout?: string },
): Promise<number> {
  const modes = (['closeout', 'resume', 'promote', 'abort'] as const).filter((m) => options[m]);
  if (modes.length > 1) throw new CliError(`--${modes.join(' and --')} cannot go together: approve one thing at a time`, 2);
  if (options.closeout && options.targetGroup) throw new CliError('--closeout approves the study\'s close-out: it takes no --target-group', 2);
  const timeoutS = Number(options.timeout ?? '600');
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new CliError(`--timeout must be a positive number of seconds, got "${options.timeout}"`, 2);
  const decides = options.resume || options.promote || options.abort;
  if (options.by !== undefined && !decides) throw new CliError('--by names who decides: it goes with --resume, --promote or --abort', 2);
  if (decides && options.by !== undefined && options.by.trim() === '') throw new CliError('--by must name who decides', 2);
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
    if (options.promote || options.abort) {
      const decision = options.promote ? 'promote' : 'abort';
      const by = resumedBy(ctx, options.by);
      const { keys, status, settled } = await client.decideSoftLaunch(ref, { decision, by, ...(options.targetGroup ? { targetGroup: options.targetGroup } : {}) }, timeoutS * 1000);
      const lines = keys.map((key) => {
        const soft = status.targetGroups[key]?.softLaunch;
        return `${key}: ${soft ? softLaunchStatusText(soft) : 'no soft launch'}${soft?.message ? ` (${soft.message})` : ''}`;
      });
      if (options.json) ctx.out.json({ workflowId: ref.workflowId, decision, by, targetGroups: Object.fromEntries(keys.map((key) => [key, status.targetGroups[key]?.softLaunch ?? null])), settled });
      else ctx.out.data(keys.length ? [`${decision} requested by ${by}:`, ...lines.map((l) => `  ${l}`)].join('\n') : 'no soft launch was waiting for a decision');
      // Nothing waiting, or every decision taken: 0; still waiting at the timeout (or a write refused): 4, as apply.
      const refused = keys.some((key) => {
        const soft = status.targetGroups[key]?.softLaunch;
        return soft?.decidedBy?.refused !== undefined || soft?.message !== undefined;
      });
      return keys.length === 0 ? 0 : settled && !refused ? 0 : 4;
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
