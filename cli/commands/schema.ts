import { studyJsonSchema } from '../../definitions';
import type { CliContext } from '../main';

export async function run(ctx: CliContext): Promise<number> {
  ctx.out.json(studyJsonSchema());
  return await Promise.resolve(0);
}
