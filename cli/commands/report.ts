import fs from 'node:fs';
import path from 'node:path';
import { QueryNotRegisteredError, WorkflowNotFoundError } from '@temporalio/client';
import { connectClient, temporalSettings } from '../../temporal/temporal-connection';
import { reportQuery } from '../../workflows/messages';
import type { CliContext } from '../main';
import { CliError } from '../output';
import { renderReportHtml } from '../report-html';
import { renderReportHuman } from '../report-human';
import { buildReportView } from '../report-model';
import { resolveStudyRef } from '../study-ref';
import { temporalUiLink } from '../status-view';

interface ReportOptions {
  account?: string;
  json?: boolean;
  html?: string;
}

/** `studyflow report <study>`: the study workflow's figures (a query, so it is fast and works while the study runs). */
export async function run(ctx: CliContext, studyArg: string, options: ReportOptions): Promise<number> {
  const ref = await resolveStudyRef(studyArg, options, ctx.env);
  const settings = temporalSettings(ctx.env);
  const { client, connection } = await connectClient(settings, ctx.env);
  try {
    const answer = await client.workflow.getHandle(ref.workflowId).query(reportQuery);
    const view = buildReportView(answer, ref.workflowId, new Date().toISOString());
    if (options.html) {
      const file = path.resolve(ctx.cwd, options.html);
      try {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, renderReportHtml(view));
      } catch (error) {
        throw new CliError(`cannot write ${options.html}: ${(error as Error).message.split('\n')[0]}`);
      }
      ctx.out.progress(`report written to ${path.relative(ctx.cwd, file) || file}`);
    }
    if (options.json) {
      ctx.out.json(view);
    } else {
      ctx.out.data(renderReportHuman(ctx.out, view));
      const ui = temporalUiLink(ctx.env, settings, ref.workflowId, ctx.cwd);
      if (ui) ctx.out.progress(ctx.out.dim(ui));
    }
    return 0;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new CliError(`no study workflow ${ref.workflowId}: apply the study first`);
    if (error instanceof QueryNotRegisteredError) {
      throw new CliError(`the workflow ${ref.workflowId} does not answer the report query: its worker runs an older studyflow (upgrade the worker)`);
    }
    throw error;
  } finally {
    await connection.close();
  }
}
