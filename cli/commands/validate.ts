import { allowOutsidePathsFromEnv, formatDiagnostic, loadStudies } from '../../definitions';
import { appendStepSummary, validateSummaryMarkdown } from '../github-view';
import type { CliContext } from '../main';
import { cliApiProfile } from '../options';
import type { ApiProfileName } from '../../shared/api-profile';

export async function run(
  ctx: CliContext,
  paths: string[],
  options: { format: 'human' | 'github' | 'json'; json?: boolean; allowOutsidePaths?: boolean; profile?: ApiProfileName },
): Promise<number> {
  const format = options.json ? 'json' : options.format;
  const apiProfile = cliApiProfile(ctx, options.profile);
  const { studies, diagnostics } = await loadStudies(paths, { allowOutsidePaths: options.allowOutsidePaths || allowOutsidePathsFromEnv(ctx.env), apiProfile });
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  if (format === 'json') {
    ctx.out.json({ valid: errors === 0, studies: studies.map((s) => ({ file: s.file, study: s.study.study })), errors, warnings, diagnostics });
    return errors ? 1 : 0;
  }
  for (const d of diagnostics) {
    const line = formatDiagnostic(d, format);
    ctx.out.data(format === 'human' ? (d.severity === 'error' ? ctx.out.red(line) : ctx.out.yellow(line)) : line);
  }
  const files = new Set([...studies.map((s) => s.file), ...diagnostics.map((d) => d.file)]).size;
  const summary = `${files} file(s) checked, ${studies.length} valid stud${studies.length === 1 ? 'y' : 'ies'}: ${errors} error(s), ${warnings} warning(s)`;
  ctx.out.progress(errors ? ctx.out.red(summary) : ctx.out.green(summary));
  if (format === 'github') appendStepSummary(ctx.env, validateSummaryMarkdown(summary, diagnostics));
  return errors ? 1 : 0;
}
