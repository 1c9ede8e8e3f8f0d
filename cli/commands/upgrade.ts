import path from 'node:path';
import { withStudyClient } from '../../client';
import { replayBundle, replayHistories } from '../../worker/replay-check';
import type { CliContext } from '../main';
import { CliError, table } from '../output';

/** What `studyflow upgrade check` ends with when a study would fail on the new bundle. */
export const UPGRADE_CHECK_FAILED = 3;

interface UpgradeOptions {
  fromCluster?: boolean;
  histories?: string;
  bundle?: string;
  buildId?: string;
  ramp?: string;
  deployment?: string;
  json?: boolean;
}

/**
 * `studyflow upgrade <check|status|set-current>` (docs/deploy.md, "Upgrading studyflow"): the calls are the study
 * client's (client/upgrade.ts); check's replay is worker/replay-check.ts, handed to it.
 */
export async function run(ctx: CliContext, action: string, options: UpgradeOptions): Promise<number> {
  if (action === 'check') return await check(ctx, options);
  if (action === 'status') return await status(ctx, options);
  if (action === 'set-current') return await setCurrent(ctx, options);
  throw new CliError(`unknown upgrade action "${action}" (expected check, status or set-current)`, 2);
}

async function check(ctx: CliContext, options: UpgradeOptions): Promise<number> {
  if (options.fromCluster && options.histories) throw new CliError('--from-cluster and --histories exclude each other', 2);
  const bundleFile = options.bundle ? path.resolve(ctx.cwd, options.bundle) : undefined;
  const bundle = await replayBundle(bundleFile).catch((error: Error) => {
    throw new CliError(error.message, 2);
  });
  return await withStudyClient(ctx.env, ctx.cwd, async (client) => {
    const upgrades = await client.upgrades();
    const result = await upgrades.check({
      historiesDir: options.histories ? path.resolve(ctx.cwd, options.histories) : undefined,
      replay: (histories) => replayHistories(bundle, histories, client.env),
    });
    const failed = result.failingStudies.length > 0;
    if (options.json) ctx.out.json({ bundle: bundleFile ?? 'this studyflow', ...result, ok: !failed });
    else {
      const bundleName = bundleFile ?? "this studyflow's workflow bundle";
      ctx.out.data(`replayed ${result.replayed.length} running workflow(s) from ${result.source} against ${bundleName}`);
      for (const { study, workflows } of result.failingStudies) {
        for (const w of workflows) ctx.out.data(`FAIL study ${study}: ${w.workflowId}: ${w.kind}: ${w.message.split('\n')[0]}`);
      }
      ctx.out.data(failed ? `${result.failingStudies.length} study(ies) would fail on the new bundle: do not make it current` : 'every running study replays on the new bundle');
    }
    return failed ? UPGRADE_CHECK_FAILED : 0;
  });
}

async function status(ctx: CliContext, options: UpgradeOptions): Promise<number> {
  return await withStudyClient(ctx.env, ctx.cwd, async (client) => {
    const s = await (await client.upgrades()).status(options.deployment);
    if (options.json) {
      ctx.out.json(s);
      return 0;
    }
    const d = s.deployment;
    ctx.out.data(
      d
        ? `deployment ${s.deploymentName} (task queue ${s.taskQueue}): current ${d.current ?? 'none'}${d.ramping ? `, ramping ${d.ramping.buildId} at ${d.ramping.percentage}%` : ''}`
        : `deployment ${s.deploymentName} (task queue ${s.taskQueue}): no versioned worker has polled yet`,
    );
    if (s.builds.length > 0) {
      ctx.out.data(table(['build', 'status', 'workflows', 'studies'], s.builds.map((b) => [b.buildId, b.status, String(b.workflows), b.studies.join(', ') || '-'])));
    }
    const unversioned = s.running.filter((r) => !r.buildId);
    if (unversioned.length > 0) ctx.out.data(`${unversioned.length} running workflow(s) on no build (started before workers were versioned)`);
    if (s.draining.length > 0) ctx.out.data(`still draining: ${s.draining.join(', ')} (keep their workers running)`);
    else {
      // The server marks an old build drained only once its visibility has caught up (minutes); the running workflows say it first.
      const serverDraining = s.builds.filter((b) => b.status === 'draining').map((b) => b.buildId);
      ctx.out.data(
        serverDraining.length > 0
          ? `no running study is on an old build; the server still reports ${serverDraining.join(', ')} draining until its visibility catches up (then it is drained and can be retired)`
          : 'nothing drains: only the current (and ramping) build runs studies',
      );
    }
    return 0;
  });
}

async function setCurrent(ctx: CliContext, options: UpgradeOptions): Promise<number> {
  if (!options.buildId) throw new CliError('set-current needs --build-id <id>', 2);
  let ramp: number | undefined;
  if (options.ramp !== undefined) {
    ramp = Number(options.ramp);
    if (!Number.isFinite(ramp) || ramp < 0 || ramp > 100) throw new CliError(`--ramp must be a percentage from 0 to 100 (it is "${options.ramp}")`, 2);
  }
  const buildId = options.buildId;
  return await withStudyClient(ctx.env, ctx.cwd, async (client) => {
    const upgrades = await client.upgrades();
    try {
      const result = await upgrades.promote(buildId, { deploymentName: options.deployment, rampPercentage: ramp });
      if (options.json) ctx.out.json(result);
      else if (ramp !== undefined) ctx.out.data(`build ${buildId} of deployment ${result.deploymentName} ramps at ${ramp}%; current stays ${result.current ?? 'none'}`);
      else ctx.out.data(`build ${buildId} is current in deployment ${result.deploymentName}: new studies start on it, running ones move at their next safe point`);
      return 0;
    } catch (error) {
      if (error instanceof Error && error.name === 'UnservedBuildError') throw new CliError(`${error.name}: ${error.message}`, 1);
      throw error;
    }
  });
}
