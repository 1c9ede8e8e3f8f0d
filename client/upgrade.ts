// `studyflow upgrade`: what a new studyflow build means for the studies that run now (docs/deploy.md, "Upgrading
// studyflow"). `check` replays the histories of running study and target-group workflows (from the cluster's
// visibility, or JSON history files) against a new workflow bundle and names each study the bundle would break;
// `status` says which build each running study is on, what is current or ramping, and which builds still drain;
// `set-current` makes a served build current. The replay itself needs the worker package, which the study client
// never loads: the command hands it in (`Replayer`, worker/replay-check.ts).
import fs from 'node:fs';
import path from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import {
  describeDeployment,
  requireServedVersion,
  setCurrentVersion,
  setRampingVersion,
  type DeploymentRouting,
  type DeploymentVersion,
} from '../temporal/worker-deployments';
import { StudyClientError } from './errors';
import type { TemporalSession } from './temporal-session';

/** The workflow types `upgrade` looks at: the study and its target groups (pinned to their builds). */
export const UPGRADED_WORKFLOW_TYPES = ['studyWorkflow', 'targetGroupWorkflow'] as const;

/** One history to replay. */
export interface HistoryToReplay {
  workflowId: string;
  history: temporal.api.history.v1.IHistory;
}

/** What a replay gave for one history (worker/replay-check.ts ReplayOutcome). */
export interface ReplayedHistory {
  workflowId: string;
  ok: boolean;
  failure?: { kind: 'nondeterminism' | 'error'; message: string };
}

/** Replays histories against the new bundle (the command passes worker/replay-check.ts's). */
export type Replayer = (histories: HistoryToReplay[]) => Promise<ReplayedHistory[]>;

/** The study (`<account>/<study>`) and target group of a studyflow workflow id (shared/workflow-ids.ts), if it is one. */
export function studyOfWorkflowId(workflowId: string): { study: string; targetGroup?: string } | undefined {
  const parts = workflowId.split('/');
  if (parts[0] !== 'study' || parts.length < 3) return undefined;
  const study = `${parts[1]}/${parts[2]}`;
  if (parts.length === 3) return { study };
  if (parts[3] === 'tg' && parts.length >= 5) return { study, targetGroup: parts.slice(4).join('/') };
  return undefined;
}

/** `upgrade check`'s answer: every history's outcome, and the studies that would fail. */
export interface UpgradeCheck {
  source: string;
  replayed: ReplayedHistory[];
  /** Each study (or workflow id, for a history that names no study) with at least one failing history, and why. */
  failingStudies: { study: string; workflows: { workflowId: string; kind: string; message: string }[] }[];
}

/** The histories of the running study and target-group workflows of `taskQueue`, from the cluster. */
export async function runningHistories(client: Client, taskQueue: string): Promise<HistoryToReplay[]> {
  const types = UPGRADED_WORKFLOW_TYPES.map((t) => `WorkflowType = "${t}"`).join(' OR ');
  const histories: HistoryToReplay[] = [];
  for await (const execution of client.workflow.list({ query: `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running" AND (${types})` })) {
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    histories.push({ workflowId: execution.workflowId, history });
  }
  return histories;
}

/**
 * The histories in `dir`: every `*.json` file, in the JSON form `temporal workflow show --output json` and the
 * SDK write (test/replay/histories). The workflow id is the one the history's started event names, else the file's name.
 */
export function historiesFromDir(dir: string): HistoryToReplay[] {
  let files: string[];
  try {
    files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  } catch (error) {
    throw new StudyClientError(`--histories ${dir} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, 2);
  }
  if (files.length === 0) throw new StudyClientError(`--histories ${dir} holds no .json history`, 2);
  return files.map((file) => {
    let history: temporal.api.history.v1.IHistory;
    try {
      history = historyFromJSON(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')));
    } catch (error) {
      throw new StudyClientError(`${path.join(dir, file)} is not a workflow history: ${(error as Error).message.split('\n')[0]}`, 2);
    }
    // Servers since 1.25 write the workflow id into the started event; else the file's name stands for it.
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    return { workflowId: started?.workflowId || file.replace(/\.json$/, ''), history };
  });
}

/** Replays the histories and names each study that would fail on the new bundle. */
export async function checkUpgrade(histories: HistoryToReplay[], replay: Replayer, source: string): Promise<UpgradeCheck> {
  const replayed = histories.length === 0 ? [] : await replay(histories);
  const failing = new Map<string, UpgradeCheck['failingStudies'][number]['workflows']>();
  for (const outcome of replayed) {
    if (outcome.ok) continue;
    const study = studyOfWorkflowId(outcome.workflowId)?.study ?? outcome.workflowId;
    const entry = failing.get(study) ?? [];
    entry.push({ workflowId: outcome.workflowId, kind: outcome.failure?.kind ?? 'error', message: outcome.failure?.message ?? 'replay failed' });
    failing.set(study, entry);
  }
  return { source, replayed, failingStudies: [...failing].map(([study, workflows]) => ({ study, workflows })).sort((a, b) => a.study.localeCompare(b.study)) };
}

/** One running workflow and the build it is on. */
export interface RunningOnBuild {
  workflowId: string;
  study?: string;
  targetGroup?: string;
  /** The build it runs on (its pinned version, or the one an auto-upgrade run last ran on); absent: unversioned. */
  buildId?: string;
  behavior?: string;
  /** A versioning override set by an operator (`temporal workflow update-options`). */
  override?: string;
}

/** `upgrade status`'s answer. */
export interface UpgradeStatus {
  deploymentName: string;
  taskQueue: string;
  /** Undefined when no versioned worker of the deployment has polled yet. */
  deployment?: Omit<DeploymentRouting, 'conflictToken'>;
  running: RunningOnBuild[];
  /** Per build: its status and the running studies (and target groups) still on it. */
  builds: { buildId: string; status: string; studies: string[]; workflows: number }[];
  /** Builds neither current nor ramping that running workflows are still pinned to: they drain. */
  draining: string[];
}

const BEHAVIOR: Record<number, string> = { 1: 'pinned', 2: 'auto-upgrade' };

/** Which build each running study and target group is on, and what still drains. */
export async function upgradeStatus(client: Client, connection: Connection, namespace: string, taskQueue: string, deploymentName: string): Promise<UpgradeStatus> {
  const deployment = await describeDeployment(connection.workflowService, namespace, deploymentName);
  const types = UPGRADED_WORKFLOW_TYPES.map((t) => `WorkflowType = "${t}"`).join(' OR ');
  const running: RunningOnBuild[] = [];
  for await (const execution of client.workflow.list({ query: `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running" AND (${types})` })) {
    const described = await client.workflow.getHandle(execution.workflowId, execution.runId).describe();
    const versioning = described.raw.workflowExecutionInfo?.versioningInfo;
    const override = versioning?.versioningOverride;
    const of = studyOfWorkflowId(execution.workflowId);
    running.push({
      workflowId: execution.workflowId,
      study: of?.study,
      targetGroup: of?.targetGroup,
      buildId: versioning?.deploymentVersion?.buildId || undefined,
      behavior: BEHAVIOR[Number(versioning?.behavior ?? 0)],
      override: override?.pinned?.version?.buildId ? `pinned to ${override.pinned.version.buildId}` : override?.autoUpgrade ? 'auto-upgrade' : undefined,
    });
  }
  const buildIds = new Set<string>([...(deployment?.versions.map((v) => v.buildId) ?? []), ...running.flatMap((r) => (r.buildId ? [r.buildId] : []))]);
  const builds = [...buildIds].sort().map((buildId) => {
    const on = running.filter((r) => r.buildId === buildId);
    const status = deployment?.current === buildId ? 'current' : deployment?.ramping?.buildId === buildId ? 'ramping' : (deployment?.versions.find((v) => v.buildId === buildId)?.status ?? 'unknown');
    return { buildId, status, studies: [...new Set(on.flatMap((r) => (r.study ? [r.study] : [r.workflowId])))].sort(), workflows: on.length };
  });
  const draining = builds.filter((b) => b.status !== 'current' && b.status !== 'ramping' && b.workflows > 0).map((b) => b.buildId);
  const { conflictToken: _token, ...shown } = deployment ?? { conflictToken: undefined };
  return { deploymentName, taskQueue, deployment: deployment ? (shown as Omit<DeploymentRouting, 'conflictToken'>) : undefined, running, builds, draining };
}

/**
 * Makes a build current, or ramps it to `rampPercentage` of new and moving runs. Refused with UnservedBuildError
 * (nothing written) when no worker of that build polls the task queue.
 */
export async function promoteBuild(
  connection: Connection,
  namespace: string,
  taskQueue: string,
  version: DeploymentVersion,
  options: { rampPercentage?: number; identity: string },
): Promise<{ current?: string; ramping?: { buildId: string; percentage: number } }> {
  await requireServedVersion(connection.workflowService, namespace, taskQueue, version);
  if (options.rampPercentage !== undefined) await setRampingVersion(connection.workflowService, namespace, version, options.rampPercentage, options.identity);
  else await setCurrentVersion(connection.workflowService, namespace, version, { identity: options.identity });
  const after = await describeDeployment(connection.workflowService, namespace, version.deploymentName);
  return { current: after?.current, ramping: after?.ramping };
}

/** The session calls of `studyflow upgrade`, as the study client hands them out (`StudyClient.upgrades`). */
export class UpgradeClient {
  constructor(
    private readonly temporal: TemporalSession,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** The deployment studyflow's workers run as: `--deployment`, STUDYFLOW_DEPLOYMENT, else the task queue. */
  deploymentName(given?: string): string {
    return given?.trim() || this.env.STUDYFLOW_DEPLOYMENT?.trim() || this.temporal.taskQueue;
  }

  /** Replays the running workflows' histories (the cluster's, or the files of `historiesDir`) with `replay`. */
  async check(options: { historiesDir?: string; replay: Replayer }): Promise<UpgradeCheck> {
    if (options.historiesDir) return await checkUpgrade(historiesFromDir(options.historiesDir), options.replay, options.historiesDir);
    const histories = await runningHistories(await this.temporal.client(), this.temporal.taskQueue);
    const { address, namespace } = this.temporal.settings;
    return await checkUpgrade(histories, options.replay, `${address} (namespace ${namespace}, task queue ${this.temporal.taskQueue})`);
  }

  async status(deploymentName?: string): Promise<UpgradeStatus> {
    return await upgradeStatus(await this.temporal.client(), await this.temporal.connection(), this.temporal.settings.namespace, this.temporal.taskQueue, this.deploymentName(deploymentName));
  }

  async promote(buildId: string, options: { deploymentName?: string; rampPercentage?: number }) {
    const version = { deploymentName: this.deploymentName(options.deploymentName), buildId };
    const result = await promoteBuild(await this.temporal.connection(), this.temporal.settings.namespace, this.temporal.taskQueue, version, {
      rampPercentage: options.rampPercentage,
      identity: 'studyflow upgrade',
    });
    return { ...version, ...result };
  }
}
