import type { ReachabilityResult } from '../worker/reachability-check';
import type { CliContext } from './main';

/** Prints check results (`--json`: an object on stdout) and returns the exit code: 0 all ok, 1 otherwise. */
export function reportReachability(ctx: CliContext, role: string, results: ReachabilityResult[], json: boolean): number {
  const ok = results.every((r) => r.ok);
  if (json) {
    ctx.out.json({ role, ok, checks: results });
  } else {
    for (const r of results) ctx.out.data(`${r.ok ? ctx.out.green('ok  ') : ctx.out.red('FAIL')} ${r.name.padEnd(16)} ${r.detail}`);
    ctx.out.progress(ok ? `${role}: everything it needs is reachable` : `${role}: ${results.filter((r) => !r.ok).length} check(s) failed`);
  }
  return ok ? 0 : 1;
}
