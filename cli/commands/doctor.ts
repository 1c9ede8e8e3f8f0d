// `studyflow doctor`: checks the configured connection the way a first apply would use it, and says plainly
// what works and what does not (the study client's doctor checks run it; this formats them). It needs no
// Temporal connection, so it takes the checks alone (client/doctor.ts) rather than a whole study client.
import { doctorChecks } from '../../client/doctor';
import type { CliContext } from '../main';

export async function run(ctx: CliContext, options: { account?: string; businessUnit?: string; json?: boolean }): Promise<number> {
  const checks = await doctorChecks(ctx.env, options);
  if (options.json) ctx.out.json({ ok: checks.every((c) => c.ok), checks });
  else for (const c of checks) ctx.out.data(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.check.padEnd(13)} ${c.detail}`);
  return checks.every((c) => c.ok) ? 0 : 1;
}
