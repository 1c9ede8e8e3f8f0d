import { withStudyClient } from '../../client';
import type { CliContext } from '../main';

/** `studyflow approve <study> [--target-group KEY]`: approves the launches waiting for approval. */
export async function run(
  ctx: CliContext,
  studyArg: string,
  options: { account?: string; targetGroup?: string; json?: boolean },
): Promise<number> {
  return await withStudyClient(ctx.env, ctx.cwd, async (client) => {
    const ref = await client.study(studyArg, options);
    const approved = await client.approve(ref, options.targetGroup);
    if (options.json) ctx.out.json({ workflowId: ref.workflowId, approved });
    else ctx.out.data(approved.length ? `approved: ${approved.join(', ')}` : 'no target group was waiting for approval');
    return 0;
  });
}
