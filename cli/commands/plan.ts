import fs from 'node:fs';
import path from 'node:path';
import { planStudy } from '../../plan/plan-study';
import { programStudy, runningFromStatus, type StudyProgram } from '../../plan/program';
import { scheduleStudy, type StudySchedule } from '../../plan/schedule';
import type { ObservedStudy, StudyPlan } from '../../plan/types';
import { PayloadDecryptionError } from '../../temporal/payload-codec';
import { connectClient, temporalSettings } from '../../temporal/temporal-connection';
import { createWorkerActivities } from '../../worker/worker-activities';
import { knownFromStatus, statusQuery, studyWorkflowId, type StudyStatus } from '../../workflows/messages';
import { reportDiagnostics } from '../diagnostics-view';
import type { CliContext } from '../main';
import { CliError } from '../output';
import { failureReason, isUnreachable, runServerChecks } from '../plan-checks';
import { renderPlanGithub, renderPlanHuman, renderPlanMarkdown, type ServerChecksView } from '../plan-view';
import { prepareStudies } from '../prepare-studies';

interface PlanOptions {
  format: 'human' | 'json' | 'markdown' | 'github';
  json?: boolean;
  detailedExitcode?: boolean;
  offline?: boolean;
  allowOutsidePaths?: boolean;
}

const EMPTY: ObservedStudy = { targetGroups: {}, exclusionGroups: {} };

/** What the study workflow remembers (remote IDs, uploaded recontact lists), when Temporal is reachable. */
async function knownFromWorkflows(ctx: CliContext, ids: { accountId: string; studyId: string }[]): Promise<Map<string, StudyStatus>> {
  const known = new Map<string, StudyStatus>();
  // A workflow that answers in payloads this process cannot decrypt is a settings error, not an
  // absent workflow: planning without what it remembers could show creates that are not.
  const unreadable = (error: unknown) => error instanceof PayloadDecryptionError;
  try {
    const { client, connection } = await connectClient(temporalSettings(ctx.env), ctx.env);
    try {
      for (const { accountId, studyId } of ids) {
        const id = studyWorkflowId(accountId, studyId);
        const status = await client.workflow
          .getHandle(id)
          .query(statusQuery)
          .catch((error: unknown) => {
            if (unreadable(error)) throw error;
            return undefined;
          });
        if (status) known.set(id, status);
      }
    } finally {
      await connection.close();
    }
  } catch (error) {
    if (unreadable(error)) throw error;
    // Temporal is optional for plan: natural keys (customer reference numbers) find the resources too.
  }
  return known;
}

export async function run(ctx: CliContext, paths: string[], options: PlanOptions): Promise<number> {
  const format = options.json ? 'json' : options.format;
  const { prepared, diagnostics } = await prepareStudies(paths, ctx.env, { allowOutsidePaths: options.allowOutsidePaths });
  if (reportDiagnostics(ctx.out, diagnostics)) return 1;
  if (prepared.length === 0) throw new CliError(`no study files found in ${paths.join(', ')}`);

  const results: { file: string; title: string; plan: StudyPlan; schedule: StudySchedule; program: StudyProgram; note?: string; server: ServerChecksView }[] = [];
  let note = options.offline ? 'offline: planned against an empty remote, no API calls' : undefined;
  const known = options.offline ? new Map<string, StudyStatus>() : await knownFromWorkflows(ctx, prepared.map((p) => p.desired));
  const runtime = options.offline ? undefined : createWorkerActivities(ctx.env);
  // Without --offline but with the API out of reach, the plan falls back to the local checks and says so.
  let unreachable: string | undefined;
  try {
    for (const { loaded, desired } of prepared) {
      const file = path.relative(ctx.cwd, loaded.file) || loaded.file;
      let observed = EMPTY;
      let server: ServerChecksView = { checks: [], note: 'skipped (offline): planned from the local checks alone' };
      const status = known.get(studyWorkflowId(desired.accountId, desired.studyId));
      if (runtime && !unreachable) {
        try {
          observed = await runtime.activities.observeStudy({
            ctx: { accountId: desired.accountId, apiVersion: desired.apiVersion },
            desired,
            known: knownFromStatus(status),
          });
        } catch (error) {
          if (!isUnreachable(error)) throw error;
          unreachable = failureReason(error);
          note = `the API cannot be reached (${unreachable}): planned against an empty remote from the local checks alone`;
        }
      }
      if (runtime && !unreachable) {
        server = { checks: await runServerChecks(runtime, desired, observed, { now: Date.now() }) };
      } else if (unreachable) {
        server = { checks: [], note: 'skipped: the API cannot be reached' };
      }
      const plan = planStudy(desired, observed);
      // The schedule apply follows: target groups whose workflow runs already take the revision themselves.
      const schedule = scheduleStudy(desired, plan, observed, new Set(status?.managedTargetGroups ?? []));
      // The steps apply runs, as the study workflow programs them.
      const program = programStudy(desired, observed, { plan, schedule, running: runningFromStatus(status) });
      results.push({ file, title: `${file}  study ${desired.studyId} (account ${desired.accountId})`, plan, schedule, program, note, server });
    }
  } finally {
    await runtime?.close();
  }

  if (format === 'json') {
    ctx.out.json({
      offline: Boolean(options.offline),
      ...(unreachable ? { apiUnreachable: unreachable } : {}),
      studies: results.map(({ file, plan, schedule, program, server }) => ({ file, ...plan, schedule, program, checks: server.checks, ...(server.note ? { checksNote: server.note } : {}) })),
    });
  } else if (format === 'markdown') {
    ctx.out.data(renderPlanMarkdown(results));
  } else if (format === 'github') {
    ctx.out.data(renderPlanGithub(results));
    const summaryFile = ctx.env.GITHUB_STEP_SUMMARY;
    if (summaryFile) fs.appendFileSync(summaryFile, `${renderPlanMarkdown(results)}\n`);
  } else {
    ctx.out.data(results.map((r) => renderPlanHuman(ctx.out, r.title, r.plan, r.note, r.server, r.schedule, r.program)).join('\n\n'));
  }
  const pending = results.some((r) => r.plan.hasChanges);
  return options.detailedExitcode && pending ? 2 : 0;
}
