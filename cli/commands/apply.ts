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
import { awaitRevision, describeTemporalError, gitRevisionOf, isTemporalUnreachable, queryStatus, submitRevision } from '../study-runs';
import { mark } from '../timeline';

/** How often the progress display asks for the study's status while it waits. */
const PROGRESS_INTERVAL_MS = 1000;
/** How long one status query for the display may take (Temporal unreachable: it fails then, and the wait goes on). */
const QUERY_DEADLINE_MS = 2000;

/** Whether Temporal answers, as the waiting sees it: since when it has not, and the last error that said so. */
interface Reachability {
  unreachableSince?: number;
  cause?: string;
}

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
  const [gitRevision, { client, connection }] = await Promise.all([gitRevisionOf(options.gitRevision, ctx.env, ctx.cwd), connectClient(settings, ctx.env).then((c) => (mark('connected'), c))]);
  try {
    const followed: Followed[] = await Promise.all(
      prepared.map(async ({ loaded, desired }) => {
        const file = path.relative(ctx.cwd, loaded.file) || loaded.file;
        const { workflowId, accepted } = await submitRevision(client, desired, { taskQueue: workflowTaskQueue(ctx.env), gitRevision, sourceFile: file });
        mark('accepted');
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
    // While Temporal is unreachable (a restart, a network cut) the wait goes on, up to --timeout, and says so;
    // stopping then names the cause.
    const display = new LiveDisplay(ctx.out);
    const showProgress = format !== 'json';
    const waiting = new AbortController();
    const temporal: Reachability = {};
    const unreachable = (error: unknown, sinceMs = Date.now(), announce = true) => {
      const first = temporal.unreachableSince === undefined;
      temporal.unreachableSince ??= sinceMs;
      temporal.cause = describeTemporalError(error);
      if (first && announce && showProgress) {
        display.note(`Temporal unreachable at ${settings.address} (${temporal.cause}); still waiting, for up to ${options.timeout} s in all (--timeout)`);
      }
    };
    const reachable = (announce = true) => {
      if (temporal.unreachableSince === undefined) return;
      const downS = Math.round((Date.now() - temporal.unreachableSince) / 1000);
      temporal.unreachableSince = undefined;
      temporal.cause = undefined;
      if (announce && showProgress) display.note(`Temporal at ${settings.address} answers again (unreachable for ${downS} s)`);
    };
    const settled = Promise.all(
      followed.map(async (f) => {
        const status = await awaitRevision(client, f.workflowId, f.revision, {
          signal: waiting.signal,
          onUnreachable: (error, since) => unreachable(error, since),
          onReachable: () => reachable(),
        });
        f.status = status;
        f.outcome = revisionOutcome(status, f.revision);
        mark('settled');
        if (showProgress) display.update(followed.map((g) => ({ name: g.file, status: g.status })));
      }),
    );
    // Stopping (timeout, Ctrl-C) aborts the waiting updates; their rejection is expected then.
    settled.catch(() => undefined);
    let stopped: 'detached' | 'timeout' | undefined;
    const timedOut = sleep(timeoutMs).then(() => 'timeout' as const);
    const interrupted = ctx.interrupted.then(() => 'detached' as const);
    const refresh = () => refreshRunning(client, followed, { onUnreachable: (error) => unreachable(error), onReachable: () => reachable() });
    try {
      while (!stopped && followed.some((f) => f.outcome === 'running')) {
        const tick = showProgress ? sleep(PROGRESS_INTERVAL_MS).then(() => 'tick' as const) : new Promise<never>(() => undefined);
        const next = await Promise.race([settled.then(() => 'settled' as const), timedOut, interrupted, tick]);
        if (next === 'timeout' || next === 'detached') stopped = next;
        else if (next === 'tick') {
          await refresh();
          if (followed.some((f) => f.outcome === 'running')) display.update(followed.map((f) => ({ name: f.file, status: f.status })));
        }
      }
    } catch (error) {
      // Temporal answered with a refusal (not an outage): say what it was, with its cause.
      throw new CliError(`waiting for the revision to settle failed: ${describeTemporalError(error)}`);
    } finally {
      waiting.abort(new Error('stopped waiting'));
    }
    if (stopped) {
      await refresh();
      for (const f of followed) if (f.outcome === 'running') f.outcome = stopped;
      // Whether Temporal answers now, asked directly: a query that timed out does not tell an outage from a busy worker.
      await connection
        .withDeadline(Date.now() + QUERY_DEADLINE_MS, () => connection.workflowService.getSystemInfo({}))
        .then(
          () => reachable(false),
          (error: unknown) => unreachable(error, Date.now(), false),
        );
    }
    display.finish();
    const downS = temporal.unreachableSince === undefined ? 0 : Math.round((Date.now() - temporal.unreachableSince) / 1000);
    const outage =
      stopped && temporal.unreachableSince !== undefined
        ? `Temporal unreachable at ${settings.address}${downS >= 1 ? ` for the last ${downS} s` : ''}: ${temporal.cause}`
        : undefined;

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
        ui: temporalUiLink(ctx.env, settings, f.workflowId, ctx.cwd),
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
          ui: temporalUiLink(ctx.env, settings, f.workflowId, ctx.cwd),
          status,
          ...(outage ? { error: outage } : {}),
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
      const ui = temporalUiLink(ctx.env, settings, f.workflowId, ctx.cwd);
      if (ui) ctx.out.data(ctx.out.dim(`Temporal UI: ${ui}`));
      if (f.outcome === 'detached' || f.outcome === 'timeout') {
        ctx.out.progress(`the study goes on; follow it with: studyflow status ${f.file}`);
      }
    }
    if (outage) ctx.out.progress(`${ctx.out.red('error')}: ${outage}`);
    return code;
  } finally {
    await connection.close();
  }
}

/**
 * The latest status of the studies still running, for the display and the summary (a failed query keeps the
 * last one). Each query may take QUERY_DEADLINE_MS: while Temporal is unreachable it fails then, and says so.
 */
async function refreshRunning(
  client: Client,
  followed: Followed[],
  reachability: { onUnreachable: (error: unknown) => void; onReachable: () => void },
): Promise<void> {
  await Promise.all(
    followed
      .filter((f) => f.outcome === 'running')
      .map(async (f) => {
        try {
          const status = await client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => queryStatus(client, f.workflowId));
          reachability.onReachable();
          // The update may have brought the final status meanwhile; a query's answer never replaces it.
          if (f.outcome === 'running') f.status = status;
        } catch (error) {
          if (isTemporalUnreachable(error)) reachability.onUnreachable(error);
        }
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
