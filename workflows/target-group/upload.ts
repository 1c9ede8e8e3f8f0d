import type { TargetGroupStep } from '../../plan/program';
import type { IdListEntityType } from '../../shared/id-list';
import type { Api } from '../activity-proxies';
import { awaitJob } from './jobs';
import type { TargetGroupState } from './state';

/** Uploads an ID or recontact list (the `upload` step: the plan says it differs), its job awaited. */
export async function uploadList(state: TargetGroupState, api: Api, step: Extract<TargetGroupStep, { kind: 'upload' }>): Promise<void> {
  state.enter('uploading', { message: step.reason });
  await uploadOne(state, api, step);
  state.status.job = undefined;
}

async function uploadOne(state: TargetGroupState, api: Api, step: Extract<TargetGroupStep, { kind: 'upload' }>): Promise<void> {
  const calls = api(`${step.reason} (${state.revision.desired.key})`, 'long');
  const list = step.ref;
  if (step.list === 'recontact_list') {
    const { jobId } = await calls.uploadRecontactList({ ...state.base, list, idempotencyKey: state.jobKey(`recontact/${list.sha256}`) });
    state.writes += 1;
    await awaitJob(state, api, 'recontact_upload', 'recontact upload', jobId);
    state.status.recontactList = { sha256: list.sha256, count: list.count };
    return;
  }
  const entityType = step.entityType as IdListEntityType;
  if (step.replace) {
    const { jobId } = await calls.removeAllExcludedIds({ ...state.base, entityType, idempotencyKey: state.jobKey(`remove-all/${entityType}/${list.sha256}`) });
    state.writes += 1;
    await awaitJob(state, api, 'remove_all', 'remove-all', jobId);
  }
  const { jobId } = await calls.uploadIdList({ ...state.base, entityType, list, idempotencyKey: state.jobKey(`upload/${entityType}/${list.sha256}`) });
  state.writes += 1;
  await awaitJob(state, api, 'id_list_upload', `${entityType} upload`, jobId);
}
