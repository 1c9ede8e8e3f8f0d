import { fieldingAction, withStudyClient } from '../../client';
import type { CliContext } from '../main';
import { CliError } from '../output';

/**
 * `studyflow fielding <pause|resume|complete> <study> --target-group KEY`: steers a live target group (If-Match with its
 * ETag) and says what its workflow answered: applied (exit 0) or refused, with why (exit 1).
 */
export async function run(
  ctx: CliContext,
  actionArg: string,
  studyArg: string,
  options: { account?: string; targetGroup: string; json?: boolean },
): Promise<number> {
  const action = fieldingAction(actionArg);
  return await withStudyClient(ctx.env, ctx.cwd, async (client) => {
    const ref = await client.study(studyArg, options);
    const answer = await client.fielding(ref, options.targetGroup, action);
    const refused = answer.outcome === 'refused';
    if (options.json) {
      ctx.out.json({ workflowId: ref.workflowId, targetGroup: options.targetGroup, action, outcome: answer.outcome, message: answer.message, ...(answer.phase ? { phase: answer.phase } : {}) });
      return refused ? 1 : 0;
    }
    // A refusal is the command's failure: `error: cannot resume: held by guard …` on stderr, exit 1.
    if (refused) throw new CliError(answer.message);
    ctx.out.data(answer.message);
    return 0;
  });
}
