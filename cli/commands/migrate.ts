import fs from 'node:fs';
import { migrateStudyText } from '../../definitions';
import type { CliContext } from '../main';
import { CliError } from '../output';
import { cliApiProfile } from '../options';
import type { ApiProfileName } from '../../shared/api-profile';

export async function run(ctx: CliContext, file: string, options: { check?: boolean; json?: boolean; profile?: ApiProfileName }): Promise<number> {
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const result = migrateStudyText(text, { apiProfile: cliApiProfile(ctx, options.profile) });
  if (options.json) ctx.out.json({ file, changes: result.changes, written: !options.check && result.changes.length > 0 });
  else if (result.changes.length === 0) ctx.out.data(`${file}: nothing to migrate`);
  else for (const c of result.changes) ctx.out.data(`${file}:${c.line}: ${c.from} -> ${c.to}${c.note ? ` (${c.note})` : ''}`);
  if (options.check) return result.changes.length ? 1 : 0;
  if (result.changes.length) {
    const tmp = `${file}.studyflow-migrate.tmp`;
    await fs.promises.writeFile(tmp, result.text);
    await fs.promises.rename(tmp, file);
    if (!options.json) ctx.out.progress(`${file}: ${result.changes.length} rename(s) written`);
  }
  return 0;
}
