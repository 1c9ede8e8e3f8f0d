import { allowOutsidePathsFromEnv, loadStudies, type Diagnostic, type LoadedStudy } from '../definitions';
import { MAX_REVERSAL_ROWS, normalizedReversalChunks } from '../definitions/reversal-file';
import { blobStoreFromEnv } from '../blobs/blob-store-env';
import { desiredStudyOf, type CloseoutListRefs, type StudyListRefs } from '../plan/desired';
import type { DesiredStudy } from '../plan/types';
import { apiProfileNamed, DEFAULT_API_PROFILE } from '../shared/api-profile';
import { mark } from './timeline';

export interface PreparedStudy {
  loaded: LoadedStudy;
  desired: DesiredStudy;
}

const KIND_TO_SLOT = { respondent_ids: 'RSID', respondent_guids: 'ACCESS_RESPONDENT_GUID', recontact: 'recontact' } as const;

/**
 * Loads and validates study files (ID lists must lie in the study repository unless
 * `allowOutsidePaths` or STUDYFLOW_ALLOW_OUTSIDE_PATHS says otherwise), stores their ID lists in the content-addressed blob store,
 * and builds each study's desired state. Studies with errors are not prepared; their
 * diagnostics come back instead.
 */
export async function prepareStudies(
  paths: string[],
  env: NodeJS.ProcessEnv,
  options: { allowOutsidePaths?: boolean } = {},
): Promise<{ prepared: PreparedStudy[]; diagnostics: Diagnostic[] }> {
  // Checked against the profile the client speaks (STUDYFLOW_API_PROFILE; an unknown name is refused by the API settings).
  const apiProfile = apiProfileNamed(env.STUDYFLOW_API_PROFILE) ?? DEFAULT_API_PROFILE;
  const { studies, diagnostics } = await loadStudies(paths, { allowOutsidePaths: options.allowOutsidePaths || allowOutsidePathsFromEnv(env), apiProfile });
  mark('validated');
  if (diagnostics.some((d) => d.severity === 'error')) return { prepared: [], diagnostics };
  const blobs = blobStoreFromEnv(env);
  const watchIntervalMs = env.STUDYFLOW_WATCH_INTERVAL_MS ? Number(env.STUDYFLOW_WATCH_INTERVAL_MS) : undefined;
  const prepared: PreparedStudy[] = [];
  for (const loaded of studies) {
    const lists: StudyListRefs = {};
    for (const list of loaded.idLists) {
      const stored = await blobs.put({ file: list.file });
      const slot = KIND_TO_SLOT[list.kind];
      lists[list.targetGroup] ??= {};
      lists[list.targetGroup][slot] = { ref: stored.ref, sha256: stored.sha256, count: stored.count };
    }
    const closeout: CloseoutListRefs = {};
    if (loaded.closeout?.reversals) {
      // The normalized reversals list (`rid,code` rows sorted by RID) is stored as the blob store's canonical form of it.
      const { summary, chunks } = await normalizedReversalChunks(loaded.closeout.reversals.inputs);
      const stored = await blobStoreFromEnv(env, { maxIds: MAX_REVERSAL_ROWS }).put(chunks());
      closeout.reversals = { ref: stored.ref, sha256: stored.sha256, count: stored.count, byCode: summary.byCode, files: loaded.closeout.reversals.files };
    }
    if (loaded.closeout?.approvedCompletes) {
      const stored = await blobs.put({ file: loaded.closeout.approvedCompletes.file });
      closeout.approvedCompletes = { ref: stored.ref, sha256: stored.sha256, count: stored.count, file: loaded.closeout.approvedCompletes.written };
    }
    prepared.push({ loaded, desired: desiredStudyOf(loaded.study, lists, { watchIntervalMs, closeout }) });
  }
  mark('prepared');
  return { prepared, diagnostics };
}
