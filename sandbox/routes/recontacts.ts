// Recontact respondent list: POST TG/recontacts/jobs/upload-respondents-by-file (same form as the
// exclusion upload) and GET …/{job_id} with status Processing | Completed | Failed.
import { unprocessable } from '../core/api-error';
import { ok, type RequestContext, type RouteModule } from '../core/route-module';
import type { JobRecord } from '../core/state-records';
import type { StateStore } from '../core/state-store';
import { MAX_IDS_PER_TARGET_GROUP, type EntityType } from '../resources/id-list-file';
import { acceptIdListUpload } from '../resources/id-list-upload';
import { listKey, newIds } from '../resources/id-exclusion-lists';
import { requireTargetGroup } from '../resources/lookups';
import { SIMULATED_FAILURE_REASON, renderJob, requireJob } from '../resources/target-group-jobs';
import { TG } from './paths';

export const RECONTACT_KIND = 'recontact_upload';
const UPLOAD = `${TG}/recontacts/jobs/upload-respondents-by-file`;

function uploadRecontactFile(ctx: RequestContext) {
  return acceptIdListUpload(ctx, {
    kind: RECONTACT_KIND,
    slot: [RECONTACT_KIND],
    what: 'recontact upload',
    defaultEntityType: 'RSID',
    assertTargetGroup: (tg) => {
      if (tg.study_type !== 'recontact') {
        throw unprocessable('study_type_not_recontact', `Target group ${tg.id} is not a recontact study (study_type ${tg.study_type}).`);
      }
    },
  });
}

const settleRecontact = (store: StateStore) => (job: JobRecord) => {
  const fail = (reason: string) => {
    job.status = 'Failed';
    job.failure_reason = reason;
  };
  if (typeof job.input.error === 'string') return fail(job.input.error);
  if (job.simulated_failure) return fail(SIMULATED_FAILURE_REASON);
  const entityType = job.input.entity_type as EntityType;
  const ids = job.input.ids as string[];
  const lists = (store.data.recontact_respondents[job.target_group_id] ??= { rsid: [], access_respondent_guid: [] });
  const key = listKey(entityType);
  const added = newIds(lists[key], ids);
  const total = lists.rsid.length + lists.access_respondent_guid.length + added.length;
  if (total > MAX_IDS_PER_TARGET_GROUP) {
    return fail(`The recontact list would hold ${total} respondents; the limit is ${MAX_IDS_PER_TARGET_GROUP}. Nothing was added.`);
  }
  for (const id of added) lists[key].push(id);
  job.status = 'Completed';
  job.result = { entity_type: entityType, ids_in_file: ids.length, ids_added: added.length, total_ids: total };
};

/** Number of recontact respondents uploaded for a target group. */
export const recontactRespondentCount = (store: StateStore, targetGroupId: string) => {
  const lists = store.data.recontact_respondents[targetGroupId];
  return lists ? lists.rsid.length + lists.access_respondent_guid.length : 0;
};

export const recontactsRoutes: RouteModule = {
  name: 'recontacts',
  routes: [
    { method: 'POST', path: UPLOAD, body: 'multipart', idempotent: true, handler: uploadRecontactFile },
    { method: 'GET', path: `${UPLOAD}/{job_id}`, handler: (ctx) => ok(renderJob(requireJob(ctx, requireTargetGroup(ctx), [RECONTACT_KIND]))) },
  ],
  init(services) {
    services.jobs.defineKind(RECONTACT_KIND, settleRecontact(services.store));
  },
};
