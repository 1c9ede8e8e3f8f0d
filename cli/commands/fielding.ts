import { fieldingAction, withStudyClient } from '../../client';
import type { CliContext } from '../main';

/** `studyflow fielding <pause|resume|complete> <study> --target-group KEY`: steers a live target group (If-Match with its ETag). */
export async function run(
  ctx: CliContext,
  actionArg: string,
  studyArg: string,
  options: { account?: string; targetGroup: string; json?: boolean },
): Promise<number> {
  const action = fieldingAction(actionArg);
  return await withStudyClient(ctx.env, ctx.cwd, async (client) => {
    const ref = await client.study(studyArg, options);
    const message = await client.fielding(ref, options.targetGroup, action);
    if (options.json) ctx.out.json({ workflowId: ref.workflowId, targetGroup: options.targetGroup, action, message });
    else ctx.out.data(message);
    return 0;
  });
}
