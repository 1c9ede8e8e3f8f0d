import { withStudyClient } from '../../client';
import type { CliContext } from '../main';

/** `studyflow cancel <study>`: cancels the study's workflows; nothing is deleted in the API. */
export async function run(ctx: CliContext, studyArg: string, options: { account?: string; json?: boolean }): Promise<number> {
  return await withStudyClient(ctx.env, ctx.cwd, async (client) => {
    const ref = await client.study(studyArg, options);
    await client.cancel(ref);
    if (options.json) ctx.out.json({ workflowId: ref.workflowId, cancelled: true });
    else ctx.out.data(`cancellation requested for ${ref.workflowId}; target groups already in the API are left as they are`);
    return 0;
  });
}
