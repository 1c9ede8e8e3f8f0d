// studyflow's workers run as a Temporal worker deployment (docs/deploy.md, "Upgrading studyflow"): one deployment
// per workflow task queue (default name: the task queue, `studyflow`), one version per build. This module reads a
// deployment (its current and ramping versions, each version's drainage) and sets its current or ramping version,
// through the Workflow service only, so that it works on a self-hosted cluster and on Temporal Cloud alike. The
// worker (worker/deployment.ts) and the study client (client/upgrade.ts) both use it.
import type { temporal } from '@temporalio/proto';

type WorkflowService = temporal.api.workflowservice.v1.WorkflowService;

/** The calls this module makes: both Connection (client) and NativeConnection (worker) have them. */
export type DeploymentService = Pick<
  WorkflowService,
  'describeWorkerDeployment' | 'describeWorkerDeploymentVersion' | 'setWorkerDeploymentCurrentVersion' | 'setWorkerDeploymentRampingVersion' | 'describeTaskQueue'
>;

/** One build of one deployment. */
export interface DeploymentVersion {
  deploymentName: string;
  buildId: string;
}

/** A version as the deployment lists it: its status and, once it is neither current nor ramping, its drainage. */
export interface VersionSummary {
  buildId: string;
  /** `current`, `ramping`, `draining` (pinned workflows still run on it), `drained`, `inactive`. */
  status: string;
}

/** A deployment: its current and ramping versions, and every version it has seen. */
export interface DeploymentRouting {
  deploymentName: string;
  current?: string;
  ramping?: { buildId: string; percentage: number };
  versions: VersionSummary[];
  conflictToken?: Uint8Array;
}

/** The build id names no version of the deployment that a worker polls now: nothing was changed. */
export class UnservedBuildError extends Error {
  override readonly name = 'UnservedBuildError';
  constructor(
    readonly version: DeploymentVersion,
    readonly taskQueue: string,
    detail: string,
  ) {
    super(`no worker serves build ${version.buildId} of deployment ${version.deploymentName} on task queue ${taskQueue} (${detail}); nothing was changed: start workers of that build first`);
  }
}

const NOT_FOUND = 5;
const grpcCode = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
};

/** The Workflow service's version status enum (WORKER_DEPLOYMENT_VERSION_STATUS_*), in words. */
const VERSION_STATUS: Record<number, string> = { 0: 'unspecified', 1: 'inactive', 2: 'current', 3: 'ramping', 4: 'draining', 5: 'drained', 6: 'created' };
/** VERSION_DRAINAGE_STATUS_* (older servers report a version's drainage only there). */
const DRAINAGE_STATUS: Record<number, string> = { 1: 'draining', 2: 'drained' };

/** The deployment, or undefined when no worker of it has polled yet. */
export async function describeDeployment(service: DeploymentService, namespace: string, deploymentName: string): Promise<DeploymentRouting | undefined> {
  let response: temporal.api.workflowservice.v1.IDescribeWorkerDeploymentResponse;
  try {
    response = await service.describeWorkerDeployment({ namespace, deploymentName });
  } catch (error) {
    if (grpcCode(error) === NOT_FOUND) return undefined;
    throw error;
  }
  const info = response.workerDeploymentInfo ?? {};
  const routing = info.routingConfig ?? {};
  const current = routing.currentDeploymentVersion?.buildId || undefined;
  const rampingBuild = routing.rampingDeploymentVersion?.buildId || undefined;
  return {
    deploymentName,
    current,
    ramping: rampingBuild ? { buildId: rampingBuild, percentage: routing.rampingVersionPercentage ?? 0 } : undefined,
    versions: (info.versionSummaries ?? []).map((summary) => ({
      buildId: summary.deploymentVersion?.buildId ?? '',
      status: Number(summary.status ?? 0) === 0 ? (DRAINAGE_STATUS[Number(summary.drainageStatus ?? 0)] ?? 'unspecified') : (VERSION_STATUS[Number(summary.status)] ?? String(summary.status)),
    })),
    conflictToken: response.conflictToken ?? undefined,
  };
}

/** The workflow task queue's pollers of `version` now (a worker of that build is running and polls). */
export async function versionPollers(service: DeploymentService, namespace: string, taskQueue: string, version: DeploymentVersion): Promise<number> {
  const response = await service.describeTaskQueue({ namespace, taskQueue: { name: taskQueue, kind: 1 }, taskQueueType: 1 });
  return (response.pollers ?? []).filter((p) => p.deploymentOptions?.deploymentName === version.deploymentName && p.deploymentOptions?.buildId === version.buildId).length;
}

/**
 * Refuses a build no worker serves: the deployment does not know it, or none of its workers polls the workflow task
 * queue now. Asks only (nothing written).
 */
export async function requireServedVersion(service: DeploymentService, namespace: string, taskQueue: string, version: DeploymentVersion): Promise<void> {
  const deployment = await describeDeployment(service, namespace, version.deploymentName);
  if (!deployment) throw new UnservedBuildError(version, taskQueue, `deployment ${version.deploymentName} does not exist in namespace ${namespace}`);
  if (!deployment.versions.some((v) => v.buildId === version.buildId)) {
    throw new UnservedBuildError(version, taskQueue, `the deployment knows builds ${deployment.versions.map((v) => v.buildId).join(', ') || 'none'}`);
  }
  if ((await versionPollers(service, namespace, taskQueue, version)) === 0) throw new UnservedBuildError(version, taskQueue, 'no worker of it polls now');
}

/** Makes `version` the deployment's current version (new studies start on it; pinned ones stay where they are). */
export async function setCurrentVersion(service: DeploymentService, namespace: string, version: DeploymentVersion, options: { conflictToken?: Uint8Array; identity: string }): Promise<void> {
  await service.setWorkerDeploymentCurrentVersion({
    namespace,
    deploymentName: version.deploymentName,
    buildId: version.buildId,
    conflictToken: options.conflictToken,
    identity: options.identity,
  });
}

/** Sends `percentage` of new runs (and of runs that move at a safe point) to `version`; 0 keeps it ramping at none. */
export async function setRampingVersion(service: DeploymentService, namespace: string, version: DeploymentVersion, percentage: number, identity: string): Promise<void> {
  await service.setWorkerDeploymentRampingVersion({ namespace, deploymentName: version.deploymentName, buildId: version.buildId, percentage, identity });
}
