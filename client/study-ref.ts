import fs from 'node:fs';
import { allowOutsidePathsFromEnv, loadStudyFile, formatDiagnostic } from '../definitions';
import { studyWorkflowId } from '../workflows/messages';
import { StudyClientError } from './errors';
import { apiProfileNamed, DEFAULT_API_PROFILE } from '../shared/api-profile';

/** A study's workflow, named by its file or by its id and account. */
export interface StudyRef {
  studyId: string;
  accountId: string;
  workflowId: string;
}

/** A study named on the command line: by its file, or by its id (with --account or STUDYFLOW_ACCOUNT_ID). */
export async function resolveStudyRef(
  arg: string,
  options: { account?: string },
  env: NodeJS.ProcessEnv,
): Promise<StudyRef> {
  if (fs.existsSync(arg) && fs.statSync(arg).isFile()) {
    // Checked against the profile the client speaks, as apply and plan check it (an unknown name: the default's checks).
    const apiProfile = apiProfileNamed(env.STUDYFLOW_API_PROFILE) ?? DEFAULT_API_PROFILE;
    const loaded = await loadStudyFile(arg, { allowOutsidePaths: allowOutsidePathsFromEnv(env), apiProfile });
    if (!loaded.study) {
      const first = loaded.diagnostics.find((d) => d.severity === 'error');
      throw new StudyClientError(`${arg} is not a valid study file${first ? `: ${formatDiagnostic(first, 'human')}` : ''} (run \`studyflow validate ${arg}\`)`);
    }
    const { study, account } = loaded.study.study;
    return { studyId: study, accountId: account, workflowId: studyWorkflowId(account, study) };
  }
  const accountId = options.account ?? env.STUDYFLOW_ACCOUNT_ID;
  if (!accountId) {
    throw new StudyClientError(`"${arg}" is not a file; give the study's account with --account <id> (or STUDYFLOW_ACCOUNT_ID)`, 2);
  }
  return { studyId: arg, accountId, workflowId: studyWorkflowId(accountId, arg) };
}
