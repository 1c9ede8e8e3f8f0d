import { execFile } from 'node:child_process';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { DesiredStudy } from '../plan/types';
import {
  applyUpdate,
  awaitRevisionUpdate,
  revisionOutcome,
  statusQuery,
  studyWorkflowId,
  type ApplyAccepted,
  type StudyStatus,
} from '../workflows/messages';
import { ACCOUNT_ID, STUDY_ID } from '../workflows/search-attributes';
import type { studyWorkflow } from '../workflows/study-workflow';

/** Update-with-start: starts the study's workflow if it is not running and hands it the revision. */
export async function submitRevision(
  client: Client,
  desired: DesiredStudy,
  options: { taskQueue: string; gitRevision?: string; sourceFile?: string },
): Promise<{ workflowId: string; accepted: ApplyAccepted }> {
  const workflowId = studyWorkflowId(desired.accountId, desired.studyId);
  const startWorkflowOperation = new WithStartWorkflowOperation<typeof studyWorkflow>('studyWorkflow', {
    workflowId,
    taskQueue: options.taskQueue,
    args: [{ accountId: desired.accountId, studyId: desired.studyId }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [
      { key: STUDY_ID, value: desired.studyId },
      { key: ACCOUNT_ID, value: desired.accountId },
    ],
    staticSummary: `Study ${desired.studyId} (account ${desired.accountId})`,
    staticDetails: [
      `**Study** ${desired.studyId}, account ${desired.accountId}, business unit ${desired.businessUnitId}`,
      options.sourceFile ? `**File** ${options.sourceFile}` : undefined,
      `**Target groups** ${desired.targetGroups.map((t) => t.key).join(', ')}`,
      `**API version** ${desired.apiVersion}`,
    ]
      .filter(Boolean)
      .join('\n\n'),
  });
  const handle = await client.workflow.startUpdateWithStart(applyUpdate, {
    args: [{ desired, gitRevision: options.gitRevision }],
    waitForStage: 'ACCEPTED',
    startWorkflowOperation,
  });
  return { workflowId, accepted: await handle.result() };
}

export async function queryStatus(client: Client, workflowId: string): Promise<StudyStatus> {
  return await client.workflow.getHandle(workflowId).query(statusQuery);
}

/**
 * The study's status once `revision` is no longer running: one update that the workflow completes when the
 * revision settles (asked again if the workflow continued as new meanwhile), so the answer comes as soon as
 * the workflow knows it, with no polling.
 */
export async function awaitRevision(client: Client, workflowId: string, revision: string): Promise<StudyStatus> {
  for (;;) {
    const status = await client.workflow.getHandle(workflowId).executeUpdate(awaitRevisionUpdate, { args: [{ revision }] });
    if (revisionOutcome(status, revision) !== 'running') return status;
  }
}

/** The commit the files come from: --git-revision, GITHUB_SHA, or `git rev-parse HEAD` where that works (asked while Temporal connects). */
export async function gitRevisionOf(explicit: string | undefined, env: NodeJS.ProcessEnv, cwd: string): Promise<string | undefined> {
  if (explicit) return explicit;
  if (env.GITHUB_SHA) return env.GITHUB_SHA;
  return await new Promise((resolve) => {
    execFile('git', ['rev-parse', '--short=12', 'HEAD'], { cwd, encoding: 'utf8' }, (error, stdout) => resolve(error ? undefined : stdout.trim() || undefined));
  });
}
