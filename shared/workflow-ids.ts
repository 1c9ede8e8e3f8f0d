// The Temporal workflow ids of a study and of its target groups: business-meaningful, no secrets. Every key
// derived from a study (the Idempotency-Keys of plan/program.ts) starts with its study's id. Pure; imports nothing.

/** The study workflow's id: `study/<account>/<study>`. */
export function studyWorkflowId(accountId: string, studyId: string): string {
  return `study/${accountId}/${studyId}`;
}

/** A target group's workflow id: `study/<account>/<study>/tg/<key>`. */
export function targetGroupWorkflowId(accountId: string, studyId: string, key: string): string {
  return `${studyWorkflowId(accountId, studyId)}/tg/${key}`;
}
