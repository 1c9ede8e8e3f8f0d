// The study client: the application layer under the CLI. Every command works through one of these methods
// (prepare, plan, submit, follow, status, approve, fielding control, cancel, report, doctor), and bench/ and
// scripts/ drive the product through it too. It holds one Temporal connection (opened by the first call that
// needs it, closed once by close()) and one error mapping (errors.ts): a failure arrives as a
// StudyClientError with the message and exit code the CLI prints, or as an error describeError names.
import { closeoutApprovalKey } from '../plan/closeout';
import type { DoctorCheck } from './doctor';
import { approveUpdate, awaitRevisionUpdate, resumeGuardedUpdate, reportQuery, softLaunchDecisionUpdate, statusQuery, type FieldingControlRequest, type StudyStatus } from '../workflows/messages';
import { StudyClientError, UnknownTargetGroupError } from './errors';
import { controlFielding, type FieldingResult } from './fielding-control';
import { callingWorkflow } from './workflow-errors';
import { followRevisions, type FollowEvent, type FollowOptions, type Submitted } from './follow';
import { planStudies, type StudiesPlan } from './plan-studies';
import { prepareStudies, type PreparedStudy } from './prepare-studies';
import { buildReportView, type ReportView } from './report-model';
import { resolveStudyRef, type StudyRef } from './study-ref';
import { gitRevisionOf, submitRevision } from './study-runs';
import { TemporalSession } from './temporal-session';
import type { UpgradeClient } from './upgrade';
import { devStackSettings } from './dev-stack';
import { mark } from './timeline';
import type { Diagnostic } from '../definitions';
import type { ApplyAccepted } from '../workflows/messages';
import { isPartial, unknownScopeKeys, type ApplyScope } from '../plan/scope';
import type { Fingerprints } from '../plan/plan-file';

/** The fielding controls of a live target group. */
export const FIELDING_ACTIONS = ['pause', 'resume', 'complete'] as const;
export type FieldingAction = FieldingControlRequest['action'];

/** A fielding action named on the command line, checked (a usage error names the choices). */
export function fieldingAction(value: string): FieldingAction {
  if (!(FIELDING_ACTIONS as readonly string[]).includes(value)) {
    throw new StudyClientError(`fielding action must be one of ${FIELDING_ACTIONS.join(', ')}, got "${value}"`, 2);
  }
  return value as FieldingAction;
}

/** Refuses a partial apply or plan naming a target group none of the studies declares (UnknownTargetGroupError, exit 2). */
export function checkScope(prepared: readonly PreparedStudy[], scope: ApplyScope | undefined): void {
  const unknown = unknownScopeKeys(prepared.map((p) => p.desired), scope);
  if (unknown.length) throw new UnknownTargetGroupError(unknown, [...new Set(prepared.flatMap((p) => p.desired.targetGroups.map((tg) => tg.key)))]);
}

/** A prepared study and where it came from, as submit takes it. */
export interface SubmitStudy extends PreparedStudy {
  /** Applied from a plan file: the fingerprints the plan relied on (client/plan-file.ts), checked again by the workflow. */
  plannedFingerprints?: Fingerprints;
  /** The study file as the user named it (relative to the working directory). */
  file: string;
}

export class StudyClient {
  private readonly temporal: TemporalSession;
  /** The settings the client works with: `env`, with a running `studyflow dev` stack's filled in where unset (dev-stack.ts). */
  readonly env: NodeJS.ProcessEnv;

  /** @throws StudyClientError when the dev stack `env` and `cwd` lead to cannot be used (it no longer runs, ...). */
  constructor(
    env: NodeJS.ProcessEnv,
    readonly cwd: string,
  ) {
    this.env = devStackSettings(env, cwd);
    this.temporal = new TemporalSession(this.env);
  }

  /** The Temporal server the client talks to (no connection is opened to tell). */
  get temporalServer(): { address: string; namespace: string } {
    const { address, namespace } = this.temporal.settings;
    return { address, namespace };
  }

  /** `studyflow upgrade`: the running studies' builds, the replay check, making a build current (client/upgrade.ts). */
  async upgrades(): Promise<UpgradeClient> {
    // Loaded on use: the history reader it needs is no part of the other commands' start-up.
    const { UpgradeClient } = await import('./upgrade');
    return new UpgradeClient(this.temporal, this.env);
  }

  /** Opens the Temporal connection now (apply overlaps it with its other start-up work); calls open it anyway. */
  async connect(): Promise<void> {
    await this.temporal.client();
  }

  /** Loads and checks study files, stores their ID lists, and builds each study's desired state. */
  async prepare(paths: string[], options: { allowOutsidePaths?: boolean } = {}): Promise<{ prepared: PreparedStudy[]; diagnostics: Diagnostic[] }> {
    return await prepareStudies(paths, this.env, options);
  }

  /** What apply would do with each study (observe, server checks, plan and schedule), without writing. */
  async plan(prepared: PreparedStudy[], options: { offline?: boolean; scope?: ApplyScope } = {}): Promise<StudiesPlan> {
    checkScope(prepared, options.scope);
    return await planStudies(this.temporal, this.env, prepared, options);
  }

  /** The commit the files come from: `explicit`, GITHUB_SHA, or `git rev-parse HEAD` where that works. */
  async gitRevision(explicit?: string): Promise<string | undefined> {
    return await gitRevisionOf(explicit, this.env, this.cwd);
  }

  /**
   * Hands each study's revision to its workflow (started if it does not run), in parallel; `onAccepted` hears
   * of each acceptance as it comes.
   */
  async submit(
    studies: SubmitStudy[],
    options: { gitRevision?: string; scope?: ApplyScope; approveCloseout?: boolean; onAccepted?: (study: SubmitStudy, workflowId: string, accepted: ApplyAccepted) => void } = {},
  ): Promise<Submitted[]> {
    checkScope(studies, options.scope);
    const client = await this.temporal.client();
    return await Promise.all(
      studies.map(async (study) => {
        const { workflowId, accepted } = await submitRevision(client, study.desired, {
          taskQueue: this.temporal.taskQueue,
          gitRevision: options.gitRevision,
          ...(isPartial(options.scope) ? { scope: options.scope } : {}),
          ...(study.plannedFingerprints ? { planned: { fingerprints: study.plannedFingerprints } } : {}),
          // `apply --approve-closeout`: the close-out is approved as these files hold it, nothing else.
          ...(options.approveCloseout && study.desired.closeout ? { approveCloseout: closeoutApprovalKey(study.desired.closeout) } : {}),
          sourceFile: study.file,
        });
        mark('accepted');
        options.onAccepted?.(study, workflowId, accepted);
        return { file: study.file, workflowId, revision: study.desired.revision };
      }),
    );
  }

  /** Follows submitted revisions until they settle (follow.ts): progress events, then a 'finished' event. */
  follow(submitted: Submitted[], options: FollowOptions): AsyncGenerator<FollowEvent, void> {
    return followRevisions(this.temporal, submitted, options);
  }

  /** The study a command names: its file, or its id with --account (or STUDYFLOW_ACCOUNT_ID). */
  async study(arg: string, options: { account?: string } = {}): Promise<StudyRef> {
    return await resolveStudyRef(arg, options, this.env);
  }

  /** Where the study stands, from its workflow. */
  async status(ref: StudyRef): Promise<StudyStatus> {
    const client = await this.temporal.client();
    return await callingWorkflow(ref.workflowId, 'status', () => client.workflow.getHandle(ref.workflowId).query(statusQuery));
  }

  /** Approves the launch of the target groups waiting for it (or only `targetGroup`); the keys approved. */
  async approve(ref: StudyRef, targetGroup?: string): Promise<string[]> {
    const client = await this.temporal.client();
    return await callingWorkflow(ref.workflowId, 'update', () =>
      client.workflow.getHandle(ref.workflowId).executeUpdate(approveUpdate, { args: [{ targetGroup }] }),
    );
  }

  /**
   * Approves the close-out waiting for approval and follows the revision that submits it (at most `timeoutMs`): the
   * study's status once it settled.
   */
  async approveCloseout(ref: StudyRef, timeoutMs: number): Promise<StudyStatus> {
    const client = await this.temporal.client();
    const handle = client.workflow.getHandle(ref.workflowId);
    const [revision] = await callingWorkflow(ref.workflowId, 'update', () => handle.executeUpdate(approveUpdate, { args: [{ closeout: true }] }));
    if (!revision) return await this.status(ref);
    const settled = callingWorkflow(ref.workflowId, 'update', () => handle.executeUpdate(awaitRevisionUpdate, { args: [{ revision }] }));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the close-out did not settle within ${Math.round(timeoutMs / 1000)} s; \`studyflow status\` follows it`)), timeoutMs);
    });
    try {
      return await Promise.race([settled, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Resumes the target groups a guard holds paused (or only `targetGroup`), recorded as resumed by `by`; the keys
   * the resume was passed to (each resumes through its fielding run and acknowledges its guards' trips).
   */
  async resumeGuarded(ref: StudyRef, by: string, targetGroup?: string): Promise<string[]> {
    const client = await this.temporal.client();
    return await callingWorkflow(ref.workflowId, 'update', () =>
      client.workflow.getHandle(ref.workflowId).executeUpdate(resumeGuardedUpdate, { args: [{ by, ...(targetGroup ? { targetGroup } : {}) }] }),
    );
  }

  /**
   * Decides the soft launches that wait (inconclusive, or failed and paused), or only `targetGroup`'s: promote to the
   * full goal, or abort (paused). Follows until each target group it reached shows the decision taken (its soft launch
   * no longer waits), at most `timeoutMs`; answers the keys reached and the study's status then.
   */
  async decideSoftLaunch(ref: StudyRef, request: { decision: 'promote' | 'abort'; by: string; targetGroup?: string }, timeoutMs: number): Promise<{ keys: string[]; status: StudyStatus; settled: boolean }> {
    const client = await this.temporal.client();
    const handle = client.workflow.getHandle(ref.workflowId);
    const sentAt = Date.now() - 1_000; // the workflow's clock is this machine's give or take; a decision recorded after it is this one
    const keys = await callingWorkflow(ref.workflowId, 'update', () => handle.executeUpdate(softLaunchDecisionUpdate, { args: [request] }));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.status(ref);
      // Taken: in the state the decision leads to, or refused with why (a write that did not go through).
      const goal = request.decision === 'promote' ? 'promoted' : 'aborted';
      const waiting = keys.filter((key) => {
        const soft = status.targetGroups[key]?.softLaunch;
        const refused = soft?.decidedBy?.refused !== undefined && soft.decidedBy.decision === request.decision && Date.parse(soft.decidedBy.at) >= sentAt;
        return soft !== undefined && soft.state !== goal && !refused;
      });
      if (waiting.length === 0 || Date.now() >= deadline) return { keys, status, settled: waiting.length === 0 };
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /**
   * Pauses, resumes or completes a live target group: its workflow's answer once it applied the control or refused it
   * (`refused` with why, e.g. `cannot resume: held by guard …`); fielding-control.ts.
   */
  async fielding(ref: StudyRef, targetGroup: string, action: FieldingAction): Promise<FieldingResult> {
    const client = await this.temporal.client();
    return await controlFielding(client, ref, targetGroup, fieldingAction(action));
  }

  /** Stops managing the study: its workflow is cancelled (nothing is deleted in the API). */
  async cancel(ref: StudyRef): Promise<void> {
    const client = await this.temporal.client();
    await callingWorkflow(ref.workflowId, 'cancel', async () => {
      const handle = client.workflow.getHandle(ref.workflowId);
      const description = await handle.describe();
      if (description.status.name !== 'RUNNING') {
        throw new StudyClientError(`study workflow ${ref.workflowId} is not running (${description.status.name.toLowerCase()}); nothing to cancel`);
      }
      await handle.cancel();
    });
  }

  /** The study's figures (its workflow's report query), derived once for every view. */
  async report(ref: StudyRef, generatedAt = new Date().toISOString()): Promise<ReportView> {
    const client = await this.temporal.client();
    const answer = await callingWorkflow(ref.workflowId, 'report', () => client.workflow.getHandle(ref.workflowId).query(reportQuery));
    return buildReportView(answer, ref.workflowId, generatedAt);
  }

  /** The checks of `studyflow doctor`: settings, a token, read-only calls (loaded only by this command). */
  async doctor(options: { account?: string; businessUnit?: string }): Promise<DoctorCheck[]> {
    const { doctorChecks } = await import('./doctor');
    return await doctorChecks(this.env, options);
  }

  /** Closes the Temporal connection, if one was opened. */
  async close(): Promise<void> {
    await this.temporal.close();
  }
}

/** Runs `use` with a study client and closes it after, however `use` ends. */
export async function withStudyClient<T>(env: NodeJS.ProcessEnv, cwd: string, use: (client: StudyClient) => Promise<T>): Promise<T> {
  const client = new StudyClient(env, cwd);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}
