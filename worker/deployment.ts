// The worker deployment a studyflow worker runs as (docs/deploy.md, "Upgrading studyflow"): its deployment name
// (STUDYFLOW_DEPLOYMENT, else the workflow task queue, `studyflow` by default) and its build id (STUDYFLOW_BUILD_ID
// or `--build-id`, else `<package version>-<first 12 hex of the workflow bundle's SHA-256>`, so that two workers
// run the same build exactly when they run the same workflow code). A worker that starts where nothing is current
// makes its own version current (a first deploy, the dev stack, the tests need no manual step); a worker of a new
// build next to a current one only joins: the operator makes it current (`studyflow upgrade set-current`).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { WorkflowBundle } from '@temporalio/worker';
import { describeDeployment, setCurrentVersion, versionPollers, type DeploymentService, type DeploymentVersion } from '../temporal/worker-deployments';
import { packageFile } from './package-files';

/** STUDYFLOW_BUILD_ID or STUDYFLOW_DEPLOYMENT is not a usable name. */
export class DeploymentNameError extends Error {
  override readonly name = 'DeploymentNameError';
}

/** A build id: letters, digits and . _ + -. A deployment name the same without `.` (the server refuses `.` and `:` in it). */
const BUILD_ID = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,254}$/;
const DEPLOYMENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_+-]{0,254}$/;

function checked(value: string, pattern: RegExp, variable: string): string {
  if (!pattern.test(value)) {
    const allowed = pattern === BUILD_ID ? '. _ + -' : '_ + - (no .)';
    throw new DeploymentNameError(`${variable} must be letters, digits and ${allowed}, at most 255, no leading punctuation; it is ${JSON.stringify(value)}`);
  }
  return value;
}

/** studyflow's package version (package.json). */
export function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(packageFile('package.json'), 'utf8')) as { version: string }).version;
}

/** The default build id: the package version and the first 12 hex digits of the bundle's SHA-256. */
export function buildIdOf(version: string, bundleCode: string): string {
  return `${version}-${createHash('sha256').update(bundleCode).digest('hex').slice(0, 12)}`;
}

/** The code of a workflow bundle, whether held or in a file. */
export async function bundleCode(bundle: WorkflowBundle | { codePath: string }): Promise<string> {
  return 'code' in bundle ? bundle.code : await fs.promises.readFile(bundle.codePath, 'utf8');
}

/** The deployment version this worker runs as: STUDYFLOW_DEPLOYMENT / STUDYFLOW_BUILD_ID, else the defaults. */
export function workerDeploymentVersion(env: Record<string, string | undefined>, taskQueue: string, code: string): DeploymentVersion {
  const deploymentName = env.STUDYFLOW_DEPLOYMENT?.trim() || taskQueue;
  const buildId = env.STUDYFLOW_BUILD_ID?.trim() || buildIdOf(packageVersion(), code);
  return {
    deploymentName: checked(deploymentName, DEPLOYMENT_NAME, env.STUDYFLOW_DEPLOYMENT?.trim() ? 'STUDYFLOW_DEPLOYMENT' : 'the deployment name (the task queue; set STUDYFLOW_DEPLOYMENT)'),
    buildId: checked(buildId, BUILD_ID, 'STUDYFLOW_BUILD_ID'),
  };
}

/** Which version becomes current when a worker starts: its own if none is (`if-none`), always (`always`), never. */
export type CurrentPolicy = 'if-none' | 'always' | 'never';

const NOT_FOUND = 5;
const FAILED_PRECONDITION = 9;
const ABORTED = 10;
const grpcCode = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
};

/**
 * Once this worker polls: makes its version current under `policy`. The server learns a version from its first poll,
 * so this waits (every 250 ms, up to `timeoutMs`) until the deployment knows the version and the workflow task queue
 * lists a poller of it (so that, once the workers have started, `studyflow upgrade set-current` finds them). With
 * `if-none`, the deployment's conflict token makes it atomic: of two workers racing, one sets, the other sees it set.
 * Returns what the deployment's current version is afterwards.
 */
export async function settleCurrentVersion(
  service: DeploymentService,
  namespace: string,
  version: DeploymentVersion,
  policy: CurrentPolicy,
  options: { taskQueue: string; identity: string; timeoutMs?: number; stopped?: () => boolean },
): Promise<{ current?: string; madeCurrent: boolean }> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const deployment = await describeDeployment(service, namespace, version.deploymentName);
    const known = (deployment?.versions.some((v) => v.buildId === version.buildId) ?? false) && (await versionPollers(service, namespace, options.taskQueue, version)) > 0;
    if (known && (policy === 'never' || deployment?.current === version.buildId || (policy === 'if-none' && deployment?.current))) {
      return { current: deployment?.current, madeCurrent: false };
    }
    if (known && policy !== 'never') {
      try {
        await setCurrentVersion(service, namespace, version, { conflictToken: policy === 'if-none' ? deployment?.conflictToken : undefined, identity: options.identity });
        return { current: version.buildId, madeCurrent: true };
      } catch (error) {
        // The version's task queues are still being registered, or another worker changed the deployment: look again.
        if (![NOT_FOUND, FAILED_PRECONDITION, ABORTED].includes(grpcCode(error) ?? -1)) throw error;
      }
    }
    if (Date.now() > deadline || options.stopped?.()) {
      throw new Error(`build ${version.buildId} of deployment ${version.deploymentName} could not be made current within ${Math.round((options.timeoutMs ?? 30_000) / 1000)} s (the server does not list it yet)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
