import path from 'node:path';
import type { Client } from '@temporalio/client';
import { connectClient, temporalSettings, workflowTaskQueue } from '../../temporal/temporal-connection';
import { reportDiagnostics } from '../diagnostics-view';
import { appendStepSummary, applyAnnotations, applySummaryMarkdown, type AppliedStudy } from '../github-view';
import type { CliContext } from '../main';
import { CliError } from '../output';
import { parseSeconds } from '../options';
import { prepareStudies } from '../prepare-studies';
import { LiveDisplay } from '../live-display';
import { statusTable, temporalUiLink } from '../status-view';
import { revisionOutcome, type StudyStatus } from '../../workflows/messages';
import { awaitRevision, gitRevisionOf, queryStatus, submitRevision } from '../study-runs';

/** How often the progress display asks for the study's status while it waits. */
const PROGRESS_INTERVAL_MS = 1000;

interface ApplyOptions {
  wait: boolean;
  requireLive?: boolean;
  timeout: string;
  gitRevision?: string;
  json?: boolean;
  format?: 'human' | 'json' | 'github';
  allowOutsidePaths?: boolean;
}

interface Followed {
  file: string;
  workflowId: string;
  revision: string;
  status?: StudyStatus;
  outcome: 'running' | 'settled' | 'superseded' | 'detached' | 'timeout';
}

export async function run(ctx: CliContext, paths: string[], options: ApplyOptions): Promise<number> {
  const format = options.json ? 'json' : (options.format ?? 'human');
  const timeoutMs = parseSeconds(options.timeout, '--timeout') * 1000;
  const { prepared, diagnostics } = await prepareStudies(paths, ctx.env, { allowOutsidePaths: options.allowOutsidePaths });
  if (reportDiagnostics(ctx.out, diagnostics, format === 'github' ? 'github' : 'human')) return 1;
  if (prepared.length === 0) throw new CliError(`no study files found in ${paths.join(', ')}`);

  const settings = temporalSettings(ctx.env);
  const [gitRevision, { client, connection }] = await Promise.all([gitRevisionOf(options.gitRevision, ctx.env, ctx.cwd), connectClient(settings, ctx.env)]);
  try {
    const followed: Followed[] = await Promise.all(
      prepared.map(async ({ loaded, desired }) => {
        const file = path.relative(ctx.cwd, loaded.file) || loaded.file;
        const { workflowId, accepted } = await submitRevision(client, desired, { taskQueue: workflowTaskQueue(ctx.env), gitRevision, sourceFile: file });
        ctx.out.progress(
          `${file}: revision ${accepted.revision} accepted by ${workflowId}${accepted.superseded ? ` (supersedes ${accepted.superseded})` : ''}`,
        );
        return { file, workflowId, revision: desired.revision, outcome: 'running' as const };
      }),
    );
    if (!options.wait) {
      if (format === 'json') ctx.out.json({ studies: followed.map(({ file, workflowId, revision }) => ({ file, workflowId, revision })) });
      return 0;
    }

    // Each study's revision is awaited with one update that the workflow completes when the revision settles;
    // the status is asked for only to show progress (once a second), never to find out that it is done.
    const display = new LiveDisplay(ctx.out);
    const showProgress = format !== 'json';
    const settled = Promise.all(
      followed.map(async (f) => {
        const status = await awaitRevision(client, f.workflowId, f.revision);
        f.status = status;
        f.outcome = revisionOutcome(status, f.revision);
        if (showProgress) display.update(followed.map((g) => ({ name: g.file, status: g.status })));
      }),
    );
    let stopped: 'detached' | 'timeout' | undefined;
    const timedOut = sleep(timeoutMs).then(() => 'timeout' as const);
    const interrupted = ctx.interrupted.then(() => 'detached' as const);
    while (!stopped && followed.some((f) => f.outcome === 'running')) {
      const tick = showProgress ? sleep(PROGRESS_INTERVAL_MS).then(() => 'tick' as const) : new Promise<never>(() => undefined);
      const next = await Promise.race([settled.then(() => 'settled' as const), timedOut, interrupted, tick]);
      if (next === 'timeout' || next === 'detached') stopped = next;
      else if (next === 'tick') {
        await refreshRunning(client, followed);
        if (followed.some((f) => f.outcome === 'running')) display.update(followed.map((f) => ({ name: f.file, status: f.status })));
      }
    }
    // An update still waiting is abandoned with the connection (closed below); its rejection is expected.
    settled.catch(() => undefined);
    if (stopped) {
      await refreshRunning(client, followed);
      for (const f of followed) if (f.outcome === 'running') f.outcome = stopped;
    }
    display.finish();

    let code = 0;
    const summaries = followed.map((f) => {
      const status = f.status;
      const tgs = Object.values(status?.targetGroups ?? {});
      const failed = status?.phase === 'failed' || status?.phase === 'partially_failed';
      const notLive = tgs.filter((t) => t.phase !== 'live' && t.phase !== 'completed');
      if (failed || f.outcome === 'timeout' || f.outcome === 'superseded' || (options.requireLive && notLive.length > 0)) code = 1;
      return { f, status, notLive };
    });
    if (format === 'github') {
      const applied: AppliedStudy[] = summaries.map(({ f, status }) => ({
        file: f.file,
        workflowId: f.workflowId,
        outcome: f.outcome,
        status,
        ui: temporalUiLink(ctx.env, settings.namespace, f.workflowId),
      }));
      for (const line of applyAnnotations(applied, Boolean(options.requireLive))) ctx.out.data(line);
      appendStepSummary(ctx.env, applySummaryMarkdown(applied));
      return code;
    }
    if (format === 'json') {
      ctx.out.json({
        studies: summaries.map(({ f, status }) => ({
          file: f.file,
          workflowId: f.workflowId,
          revision: f.revision,
          outcome: f.outcome,
          ui: temporalUiLink(ctx.env, settings.namespace, f.workflowId),
          status,
        })),
      });
      return code;
    }
    for (const { f, status, notLive } of summaries) {
      ctx.out.data('');
      ctx.out.data(ctx.out.bold(`${f.file}  study ${status?.studyId ?? '?'}  ${describeOutcome(f, status)}`));
      if (status?.projectId) ctx.out.data(`project ${status.projectId}, ${status.writes} write(s) so far`);
      if (status) ctx.out.data(statusTable(ctx.out, status));
      if (status?.error) ctx.out.data(ctx.out.red(`error: ${status.error}`));
      if (notLive.length && options.requireLive) ctx.out.data(ctx.out.red(`not live: ${notLive.map((t) => t.key).join(', ')}`));
      ctx.out.data(ctx.out.dim(`Temporal UI: ${temporalUiLink(ctx.env, settings.namespace, f.workflowId)}`));
      if (f.outcome === 'detached' || f.outcome === 'timeout') {
        ctx.out.progress(`the study goes on; follow it with: studyflow status ${f.file}`);
      }
    }
    return code;
  } finally {
    await connection.close();
  }
}

/** The latest status of the studies still running, for the display and the summary (a failed query keeps the last one). */
async function refreshRunning(client: Client, followed: Followed[]): Promise<void> {
  await Promise.all(
    followed
      .filter((f) => f.outcome === 'running')
      .map(async (f) => {
        const status = await queryStatus(client, f.workflowId).catch(() => undefined);
        // The update may have brought the final status meanwhile; a query's answer never replaces it.
        if (status && f.outcome === 'running') f.status = status;
      }),
  );
}

function describeOutcome(f: Followed, status: StudyStatus | undefined): string {
  switch (f.outcome) {
    case 'settled':
      return status?.phase ?? 'settled';
    case 'superseded':
      return `superseded by revision ${status?.revision}`;
    case 'detached':
      return 'detached (still applying)';
    case 'timeout':
      return 'timed out following (still applying)';
    default:
      return f.outcome;
  }
}

/** A timer that does not keep the process alive (the command exits once the studies are followed). */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
