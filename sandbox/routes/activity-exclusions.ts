// GET/PUT TG/respondent-activity-exclusions (spec: Endpoints › Respondent activity exclusions).
// PUT body {duration?, respondent_activity_exclusions: [items]} replaces the whole list and answers 204.
// Items {type: project|target-group, id, duration?} (the reference's), respondent_statuses? in the spec's dialect.
// GET answers {respondent_activity_exclusions: [items]} (the reference's answer: no request-level duration; each
// item carries the duration in effect).
import { ApiError } from '../core/api-error';
import { ObjectReader } from '../core/input-validation';
import { noContent, ok, type RequestContext, type RouteModule } from '../core/route-module';
import type { TargetGroupRecord } from '../core/state-records';
import { assertWriteVersionAllowed, pinWriteVersion } from '../core/versioning';
import {
  checkActivityExclusionRules,
  readActivityExclusionItems,
  readDuration,
  renderActivityExclusion,
  type ResolvedDuration,
} from '../resources/activity-exclusions';
import { requireTargetGroup } from '../resources/lookups';
import { emitTargetGroupEvent } from '../resources/target-group-events';
import { TG } from './paths';

const render = (tg: TargetGroupRecord, ctx: RequestContext) => ({
  respondent_activity_exclusions: tg.respondent_activity_exclusions.map((item) => renderActivityExclusion(item, ctx.dialect)),
});

function replaceActivityExclusions(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  if (tg.status === 'completed') {
    throw new ApiError(422, 'invalid_state_error', `Target group ${tg.id} is completed; its exclusions can no longer change.`);
  }
  const r = ObjectReader.body(ctx.body);
  r.rejectUnknown(['duration', 'respondent_activity_exclusions']);
  let requestDuration: ResolvedDuration | null = null;
  if (r.has('duration') && r.value.duration !== null) requestDuration = readDuration(r.value.duration, 'duration', r.problems);
  const durationOk = !r.has('duration') || r.value.duration === null || requestDuration !== null;
  const raw = r.array('respondent_activity_exclusions', { required: true });
  const items = raw && durationOk ? readActivityExclusionItems(raw, 'respondent_activity_exclusions', r.problems, requestDuration, ctx.dialect) : [];
  r.finish('The respondent activity exclusions are invalid.');
  checkActivityExclusionRules(items, 'respondent_activity_exclusions', ctx.account!, ctx.store.data);
  tg.respondent_activity_exclusions = items;
  tg.respondent_activity_exclusions_duration = requestDuration?.duration ?? null;
  tg.updated_at = ctx.clock.iso();
  pinWriteVersion(tg, ctx.version);
  emitTargetGroupEvent(ctx, 'updated', tg, ['respondent_activity_exclusions']);
  // Reference (set_target_group_respondent_activity_exclusions): 204 without a body.
  return noContent();
}

export const activityExclusionsRoutes: RouteModule = {
  name: 'activity-exclusions',
  routes: [
    { method: 'GET', path: `${TG}/respondent-activity-exclusions`, handler: (ctx) => ok(render(requireTargetGroup(ctx), ctx)) },
    { method: 'PUT', path: `${TG}/respondent-activity-exclusions`, handler: replaceActivityExclusions },
  ],
};
