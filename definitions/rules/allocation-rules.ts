// Allocation rules: a least share above the largest share of the same thing is refused by the API
// (the open exchange's exchange_min/max_percentage, and each supplier group's min/max_percentage).
import type { DocPath } from '../doc-path';
import type { FileReporter } from '../reporter';
import type { Allocations } from '../study-schema';

/** Checks allocations where they are written (`at`: the `allocations` of a target group or of `defaults`). */
export function checkAllocations(allocations: Allocations, at: DocPath, r: FileReporter): void {
  const open = allocations.open_exchange_allocations;
  if (open.exchange_min_percentage > open.exchange_max_percentage) {
    r.report(
      'SF4017',
      [...at, 'open_exchange_allocations', 'exchange_min_percentage'],
      `exchange_min_percentage ${open.exchange_min_percentage} is above exchange_max_percentage ${open.exchange_max_percentage}`,
      { hint: 'the least share of completes from the open exchange cannot exceed its largest share; the API refuses it' },
    );
  }
  const exchanges = [
    ['open_exchange_allocations', open.groups],
    ['private_exchange_allocations', allocations.private_exchange_allocations?.groups ?? []],
  ] as const;
  for (const [exchange, groups] of exchanges) {
    groups.forEach((group, g) => {
      if (group.min_percentage <= group.max_percentage) return;
      r.report(
        'SF4017',
        [...at, exchange, 'groups', g, 'min_percentage'],
        `group "${group.group_name}": min_percentage ${group.min_percentage} is above max_percentage ${group.max_percentage}`,
        { hint: 'the least share of completes from a group cannot exceed its largest share; the API refuses it' },
      );
    });
  }
}
