import type { PlannedAction } from '../../plan/types';
import type { IdListEntityType, ListRef } from '../../shared/id-list';
import type { Api } from '../activity-proxies';
import { awaitJob } from './jobs';
import type { TargetGroupState } from './state';

/** Uploads the ID and recontact lists the plan says differ, one after the other, each job awaited. */
export async function uploadLists(state: TargetGroupState, api: Api): Promise<void> {
  for (const action of state.revision.actions.filter((a) => a.kind === 'upload' || a.kind === 'replace_list')) {
    state.enter('uploading', { message: action.reason });
    await uploadList(state, api, action);
  }
  state.status.job = undefined;
}

async function uploadList(state: TargetGroupState, api: Api, action: PlannedAction): Promise<void> {
  const calls = api(`${action.reason} (${state.revision.desired.key})`, 'long');
  const list = action.list as ListRef;
  if (action.resource === 'recontact_list') {
    const { jobId } = await calls.uploadRecontactList({ ...state.base, list, idempotencyKey: state.jobKey(`recontact/${list.sha256}`) });
    state.writes += 1;
    await awaitJob(state, api, 'recontact_upload', 'recontact upload', jobId);
    state.status.recontactList = { sha256: list.sha256, count: list.count };
    return;
  }
  const entityType = action.entityType as IdListEntityType;
  if (action.kind === 'replace_list') {
    const { jobId } = await calls.removeAllExcludedIds({ ...state.base, idempotencyKey: state.jobKey(`remove-all/${entityType}/${list.sha256}`) });
    state.writes += 1;
    await awaitJob(state, api, 'remove_all', 'remove-all', jobId);
  }
  const { jobId } = await calls.uploadIdList({ ...state.base, entityType, list, idempotencyKey: state.jobKey(`upload/${entityType}/${list.sha256}`) });
  state.writes += 1;
  await awaitJob(state, api, 'id_list_upload', `${entityType} upload`, jobId);
}
