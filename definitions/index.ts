// Public API of the study definitions: the model, loading with diagnostics, the JSON Schema,
// ID list checks and the migration of pre-2025-12-18 names. Pure apart from reading files.
export type { Diagnostic, SourceRange } from './diagnostic';
export { formatDiagnostic, githubCommand, hasErrors, compareDiagnostics } from './diagnostic';
export { DIAGNOSTIC_CODES, type DiagnosticCode, type Severity } from './diagnostic-codes';
export type {
  Study,
  TargetGroupSpec,
  LaunchRules,
  Timing,
  Profile,
  Target,
  Condition,
  Quota,
  ActivityExclusionItem,
  ActivityExclusions,
  Webhook,
  Money,
  RespondentStatus,
  ApiVersion,
  StudyFile,
  SharedFile,
} from './study-schema';
export {
  StudySchema,
  StudyFileSchema,
  SharedFileSchema,
  FORMAT_VERSION,
  API_VERSIONS,
  CURRENT_API_VERSION,
  RESPONDENT_STATUSES,
  SHARED_FILE_NAMES,
} from './study-schema';
export { loadStudyFile, loadStudyText, type LoadedStudy, type IdListRef, type LoadOptions, type StudyFileResult } from './load-study-file';
export { loadStudies } from './load-studies';
export { allowOutsidePathsFromEnv, ALLOW_OUTSIDE_PATHS_ENV } from './study-repository';
export { studyJsonSchema, sharedJsonSchema, schemaFileText } from './json-schema';
export { migrateStudyText, type MigrationChange } from './migrate-study-text';
export {
  checkIdListFile,
  checkIdListSource,
  writeNormalizedIdList,
  hashIdList,
  IdListFileError,
  MAX_IDS_PER_LIST,
  MAX_ID_LENGTH,
  MAX_LINE_BYTES,
  type IdListKind,
  type IdListCheck,
} from './id-list-file';
export {
  checkReversalFiles,
  checkReversalSources,
  normalizedReversalChunks,
  ReversalFileError,
  MAX_REVERSAL_ROWS,
  MAX_ROWS_PER_SUBMISSION,
  type ReversalFileInput,
  type ReversalSourceInput,
  type ReversalsCheck,
  type ReversalsSummary,
  type KeptRids,
} from './reversal-file';
export type { LoadedCloseout } from './closeout-files';
export type { Closeout } from './study-schema';
export { periodToDays, effectiveActivityDays, timingDurationMs, DEFAULT_ACTIVITY_DURATION, DAYS_PER_UNIT } from './periods';
