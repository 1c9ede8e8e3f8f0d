import fs from 'node:fs';
import path from 'node:path';
import { withStudyClient } from '../../client';
import type { CliContext } from '../main';
import { CliError } from '../output';
import { renderReportHtml } from '../report-html';
import { renderReportHuman } from '../report-human';
import { temporalUiLink } from '../status-view';

interface ReportOptions {
  account?: string;
  json?: boolean;
  html?: string;
}

/** `studyflow report <study>`: the study workflow's figures (a query, so it is fast and works while the study runs). */
export async function run(ctx: CliContext, studyArg: string, options: ReportOptions): Promise<number> {
  return await withStudyClient(ctx.env, ctx.cwd, async (client) => {
    const ref = await client.study(studyArg, options);
    const view = await client.report(ref);
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
      const ui = temporalUiLink(ctx.env, client.temporalServer, ref.workflowId, ctx.cwd);
      if (ui) ctx.out.progress(ctx.out.dim(ui));
    }
    return 0;
  });
}
