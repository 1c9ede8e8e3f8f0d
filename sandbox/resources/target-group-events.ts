// Emits the target-group lifecycle events of the internal bus (consumed by the webhook deliverer).
import type { TargetGroupChange } from '../core/event-bus';
import type { SandboxServices } from '../core/route-module';
import type { TargetGroupRecord } from '../core/state-records';

export function emitTargetGroupEvent(
  services: SandboxServices,
  change: TargetGroupChange,
  tg: TargetGroupRecord,
  changedFields: string[] = [],
): void {
  services.events.emit(`target_group.${change}`, {
    change,
    account_id: tg.account_id,
    project_id: tg.project_id,
    target_group_id: tg.id,
    target_group: structuredClone(tg),
    changed_fields: changedFields,
    occurred_at: services.clock.iso(),
  });
}
