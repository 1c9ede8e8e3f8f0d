import path from 'node:path';
import { applyExitCode, checkScope, notLiveOf, withStudyClient, type Followed, type FollowEvent } from '../../client';
import type { StudyStatus } from '../../workflows/messages';
import { reportDiagnostics } from '../diagnostics-view';
import { appendStepSummary, applyAnnotations, applySummaryMarkdown, type AppliedStudy } from '../github-view';
import { LiveDisplay } from '../live-display';
import type { CliContext } from '../main';
import { parseSeconds } from '../options';
import { CliError } from '../output';
import { closeoutLines } from '../closeout-view';
import { statusTable, studyPhaseText, temporalUiLink, unappliedLines } from '../status-view';

interface ApplyOptions {
  wait: boolean;
  requireLive?: boolean;
  timeout: string;
  gitRevision?: string;
  /** Approve the close-out's reversals as the files hold them. */
  approveCloseout?: boolean;
  json?: boolean;
  format?: 'human' | 'json' | 'github';
  allowOutsidePaths?: boolean;
  targetGroup?: string[];
  except?: string[];
  plan?: string;
}

/**
 * `studyflow apply`: the study client prepares the files, submits each revision and follows it; this renders
 * the progress (a live display on stderr) and the outcome in the chosen format.
 */
export async function run(ctx: CliContext, paths: string[], options: ApplyOptions): Promise<number> {
  const format = options.json ? 'json' : (options.format ?? 'human');
  const timeoutMs = parseSeconds(options.timeout, '--timeout') * 1000;
  return await withStudyClient(ctx.env, ctx.cwd, async (client) => {
    // A plan file (`apply plan.sfplan` or --plan): its studies, checked against the exchange now (client/plan-file.ts).
    const planFile = options.plan ?? (paths.length === 1 && paths[0].endsWith('.sfplan') ? paths[0] : undefined);
    if (planFile && (options.targetGroup || options.except || (options.plan && paths.length))) throw new CliError('a plan file is applied as planned: no study paths, --target-group or --except beside it', 2);
    if (!planFile && paths.length === 0) throw new CliError('missing study files or a plan file (run with --help for usage)', 2);
    const fromPlan = planFile ? await (await import('../../client/plan-file')).preparePlanFile(client, planFile, { cwd: ctx.cwd, env: ctx.env, allowOutsidePaths: options.allowOutsidePaths }) : undefined;
    const { prepared, diagnostics } = fromPlan ?? (await client.prepare(paths, { allowOutsidePaths: options.allowOutsidePaths }));
    if (reportDiagnostics(ctx.out, diagnostics, format === 'github' ? 'github' : 'human')) return 1;
    if (prepared.length === 0) throw new CliError(`no study files found in ${paths.join(', ')}`);

    const studies = prepared.map((p) => ({ ...p, file: path.relative(ctx.cwd, p.loaded.file) || p.loaded.file }));
    // A partial apply (--target-group, --except): an unknown key is refused here, before anything is written.
    const scope = fromPlan ? (fromPlan.scope ?? {}) : { only: options.targetGroup, except: options.except };
    checkScope(studies, scope);
    const [gitRevision] = await Promise.all([client.gitRevision(options.gitRevision), client.connect()]);
    const submitted = await client.submit(studies, {
      gitRevision,
      scope,
      approveCloseout: Boolean(options.approveCloseout),
      onAccepted: (study, workflowId, accepted) =>
        ctx.out.progress(`${study.file}: revision ${accepted.revision} accepted by ${workflowId}${accepted.superseded ? ` (supersedes ${accepted.superseded})` : ''}`),
    });
    if (!options.wait) {
      if (format === 'json') ctx.out.json({ studies: submitted.map(({ file, workflowId, revision }) => ({ file, workflowId, revision })) });
      return 0;
    }

    const display = new LiveDisplay(ctx.out);
    let finished: Extract<FollowEvent, { type: 'finished' }> | undefined;
    for await (const event of client.follow(submitted, { timeoutMs, detach: ctx.interrupted, progress: format !== 'json' })) {
      if (event.type === 'progress') display.update(event.studies);
      else if (event.type === 'unreachable') {
        display.note(`Temporal unreachable at ${event.address} (${event.cause}); still waiting, for up to ${options.timeout} s in all (--timeout)`);
      } else if (event.type === 'reachable') display.note(`Temporal at ${event.address} answers again (unreachable for ${event.downS} s)`);
      else finished = event;
    }
    display.finish();
    if (!finished) throw new CliError('following the studies ended without an outcome');
    const { studies: followed, outage } = finished;
    const code = applyExitCode(followed, options);
    const ui = (f: Followed) => temporalUiLink(ctx.env, client.temporalServer, f.workflowId, ctx.cwd);

    if (format === 'github') {
      const applied: AppliedStudy[] = followed.map((f) => ({ file: f.file, workflowId: f.workflowId, outcome: f.outcome, status: f.status, ui: ui(f) }));
      for (const line of applyAnnotations(applied, Boolean(options.requireLive))) ctx.out.data(line);
      appendStepSummary(ctx.env, applySummaryMarkdown(applied));
      return code;
    }
    if (format === 'json') {
      ctx.out.json({
        studies: followed.map((f) => ({
          file: f.file,
          workflowId: f.workflowId,
          revision: f.revision,
          outcome: f.outcome,
          ui: ui(f),
          status: f.status,
          ...(outage ? { error: outage } : {}),
        })),
      });
      return code;
    }
    for (const f of followed) {
      const status = f.status;
      const notLive = notLiveOf(status);
      ctx.out.data('');
      ctx.out.data(ctx.out.bold(`${f.file}  study ${status?.studyId ?? '?'}  ${describeOutcome(f, status)}`));
      if (status?.projectId) ctx.out.data(`project ${status.projectId}, ${status.writes} write(s) so far`);
      if (status) ctx.out.data(statusTable(ctx.out, status));
      if (status && f.outcome === 'settled') for (const line of [...unappliedLines(ctx.out, status), ...closeoutLines(status)]) ctx.out.data(line);
      if (status?.error) ctx.out.data(ctx.out.red(`error: ${status.error}`));
      if (notLive.length && options.requireLive) ctx.out.data(ctx.out.red(`not live: ${notLive.map((t) => t.key).join(', ')}`));
      const link = ui(f);
      if (link) ctx.out.data(ctx.out.dim(`Temporal UI: ${link}`));
      if (f.outcome === 'detached' || f.outcome === 'timeout') {
        ctx.out.progress(`the study goes on; follow it with: studyflow status ${f.file}`);
      }
    }
    if (outage) ctx.out.progress(`${ctx.out.red('error')}: ${outage}`);
    return code;
  });
}

function describeOutcome(f: Followed, status: StudyStatus | undefined): string {
  switch (f.outcome) {
    case 'settled':
      return status ? studyPhaseText(status) : 'settled';
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
