import fs from 'node:fs';
import path from 'node:path';
import { withStudyClient } from '../../client';
import { reportDiagnostics } from '../diagnostics-view';
import type { CliContext } from '../main';
import { CliError } from '../output';
import { renderPlanGithub, renderPlanHuman, renderPlanMarkdown } from '../plan-view';
import { closeoutPlanLines } from '../closeout-view';
import type { PlannedStudy } from '../../client';

/** The close-out's lines under a study's plan (none without one). */
function closeoutHuman(closeout: PlannedStudy['closeout']): string[] {
  if (!closeout) return [];
  if (!closeout.plan) return [`Close-out: ${closeout.note ?? 'not planned'}`];
  return closeoutPlanLines(closeout.plan, closeout.blocks);
}

interface PlanOptions {
  format: 'human' | 'json' | 'markdown' | 'github';
  json?: boolean;
  detailedExitcode?: boolean;
  offline?: boolean;
  allowOutsidePaths?: boolean;
  targetGroup?: string[];
  except?: string[];
  out?: string;
}

/** `studyflow plan`: what apply would change (the study client plans; this renders it in the chosen format). */
export async function run(ctx: CliContext, paths: string[], options: PlanOptions): Promise<number> {
  const format = options.json ? 'json' : options.format;
  return await withStudyClient(ctx.env, ctx.cwd, async (client) => {
    const { prepared, diagnostics } = await client.prepare(paths, { allowOutsidePaths: options.allowOutsidePaths });
    if (reportDiagnostics(ctx.out, diagnostics)) return 1;
    if (prepared.length === 0) throw new CliError(`no study files found in ${paths.join(', ')}`);
    const scope = { only: options.targetGroup, except: options.except };
    const planned = await client.plan(prepared, { offline: options.offline, scope });
    if (options.out) {
      // The plan file (client/plan-file.ts): what `apply FILE.sfplan` runs, if the exchange has not moved since.
      const { apiProfileOf, planFileContent, savePlanFile } = await import('../../client/plan-file');
      savePlanFile(path.resolve(ctx.cwd, options.out), planFileContent(planned, { cwd: ctx.cwd, profile: apiProfileOf(ctx.env), scope }));
      ctx.out.progress(`plan written to ${options.out}; apply it with: studyflow apply ${options.out}`);
    }

    const results = planned.studies.map(({ loaded, desired, plan, schedule, program, checks, forecast, checksNote, note, closeout }) => {
      const file = path.relative(ctx.cwd, loaded.file) || loaded.file;
      const server = { checks, ...(checksNote ? { note: checksNote } : {}), ...(forecast ? { forecast } : {}) };
      return { file, title: `${file}  study ${desired.studyId} (account ${desired.accountId})`, plan, schedule, program, note, server, closeout };
    });
    if (format === 'json') {
      ctx.out.json({
        offline: planned.offline,
        ...(planned.apiUnreachable ? { apiUnreachable: planned.apiUnreachable } : {}),
        studies: results.map(({ file, plan, schedule, program, server, closeout }) => ({ file, ...plan, schedule, program, checks: server.checks, ...(server.note ? { checksNote: server.note } : {}), ...(server.forecast ? { forecast: server.forecast } : {}), ...(closeout ? { closeout } : {}) })),
      });
    } else if (format === 'markdown') {
      ctx.out.data(renderPlanMarkdown(results));
    } else if (format === 'github') {
      ctx.out.data(renderPlanGithub(results));
      const summaryFile = ctx.env.GITHUB_STEP_SUMMARY;
      if (summaryFile) fs.appendFileSync(summaryFile, `${renderPlanMarkdown(results)}\n`);
    } else {
      ctx.out.data(results.map((r) => [renderPlanHuman(ctx.out, r.title, r.plan, r.note, r.server, r.schedule, r.program), ...closeoutHuman(r.closeout)].join('\n')).join('\n\n'));
    }
    return options.detailedExitcode ? planned.detailedExitCode : 0;
  });
}
