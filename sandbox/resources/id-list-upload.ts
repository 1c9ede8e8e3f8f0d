// Taking an ID-list file upload (multipart field `file`, query entity_type) as a job: the exclusion
// upload and the recontact upload share the form, the checks and the answer.
import { badRequest, type InvalidParam } from '../core/api-error';
import { created, type RequestContext } from '../core/route-module';
import type { JobKind, TargetGroupRecord } from '../core/state-records';
import { assertWriteVersionAllowed, pinWriteVersion } from '../core/versioning';
import { firstNonUuidRsidLine, parseIdListFile, readEntityType, type EntityType } from './id-list-file';
import { requireTargetGroup } from './lookups';
import { assertNoRunningJob, assertNotCompleted, createTargetGroupJob } from './target-group-jobs';

export interface IdListUploadRules {
  kind: JobKind;
  /** Job kinds that share one running slot per target group with this upload. */
  slot: readonly string[];
  /** What the conflict error calls a running job of the slot. */
  what: string;
  /** entity_type when the query has none (required when undefined). */
  defaultEntityType?: EntityType;
  /** A further check of the target group, after the form's and before the job's. */
  assertTargetGroup?: (tg: TargetGroupRecord) => void;
}

/** Validates the upload, then creates the Processing job that settles it: 201 {job_id} (the reference's answer) with Location. */
export function acceptIdListUpload(ctx: RequestContext, rules: IdListUploadRules) {
  const tg = requireTargetGroup(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  const problems: InvalidParam[] = [];
  const entityType = readEntityType(ctx.query, problems, rules.defaultEntityType);
  const file = ctx.form!.get('file');
  if (!file) problems.push({ name: 'file', reason: 'multipart field "file" is required' });
  // RSIDs are UUIDs (the reference): a file with any other line is refused before a job starts, naming the line only.
  const badLine = file && entityType === 'RSID' ? firstNonUuidRsidLine(file) : undefined;
  if (badLine !== undefined) problems.push({ name: 'file', reason: `line ${badLine} is not an RSID (a UUID)` });
  if (problems.length > 0) throw badRequest('The upload is invalid.', problems);
  rules.assertTargetGroup?.(tg);
  assertNotCompleted(tg);
  assertNoRunningJob(ctx, tg, rules.slot, rules.what);
  const parsed = parseIdListFile(file!, entityType!);
  const job = createTargetGroupJob(
    ctx,
    tg,
    rules.kind,
    parsed.ok ? { entity_type: entityType, ids: parsed.ids } : { entity_type: entityType, error: parsed.reason },
    { entity_type: entityType },
  );
  pinWriteVersion(tg, ctx.version);
  return created({ job_id: job.id }, { location: `${ctx.path}/${job.id}` });
}
