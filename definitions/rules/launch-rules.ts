// Rules on timed and staged launches across the target groups of a study: `launch.after` names
// another target group of the study (not itself, no cycle), and a launch is either timed or staged.
import { didYouMeanHint } from '../did-you-mean';
import type { DocPath } from '../doc-path';
import type { FileReporter } from '../reporter';
import type { MergedTargetGroup } from '../study-schema';

export interface LaunchOrderEntry {
  key: string;
  launch: MergedTargetGroup['launch'];
  /** Where a launch field was written (the target group, or `defaults`). */
  origin: (...fieldPath: string[]) => DocPath;
}

/** The keys of a cycle through `launch.after` that starts at `start`, or undefined. */
function cycleFrom(start: string, next: ReadonlyMap<string, string>): string[] | undefined {
  const path = [start];
  let at = next.get(start);
  while (at !== undefined) {
    if (at === start) return path;
    if (path.includes(at)) return undefined; // a cycle that does not pass through `start`: reported from its own members
    path.push(at);
    at = next.get(at);
  }
  return undefined;
}

export function checkLaunchOrder(entries: readonly LaunchOrderEntry[], keys: readonly string[], r: FileReporter): void {
  const next = new Map<string, string>();
  for (const { key, launch, origin } of entries) {
    if (launch.at !== undefined && launch.after !== undefined) {
      r.report('SF4020', origin('launch', 'after'), `target group \`${key}\` gives both launch.at and launch.after`, {
        target: 'key',
        hint: 'a launch is either timed (at) or staged (after another target group); keep one of them',
      });
    }
    const after = launch.after;
    if (!after) continue;
    const at = [...origin('launch', 'after'), 'target_group'];
    if (after.target_group === key) {
      r.report('SF4018', at, `target group \`${key}\` waits for its own completes in launch.after`, {
        hint: 'name another target group of this study, whose completes open this launch',
      });
    } else if (!keys.includes(after.target_group)) {
      r.report('SF5001', at, `unknown target group \`${after.target_group}\` in launch.after of \`${key}\``, {
        hint: didYouMeanHint(after.target_group, keys.filter((k) => k !== key), 'target groups of this study'),
      });
    } else {
      next.set(key, after.target_group);
    }
  }
  // One error per cycle, at its first member in the file.
  const inReportedCycle = new Set<string>();
  for (const { key, origin } of entries) {
    if (inReportedCycle.has(key)) continue;
    const cycle = cycleFrom(key, next);
    if (!cycle) continue;
    for (const member of cycle) inReportedCycle.add(member);
    r.report('SF4019', [...origin('launch', 'after'), 'target_group'], `launch.after forms a cycle: ${[...cycle, key].map((k) => `\`${k}\``).join(' -> ')}`, {
      hint: 'each of these waits for the next, so none would ever launch; let one of them launch without launch.after',
    });
  }
}
