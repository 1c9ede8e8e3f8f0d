// Study-file text for tests that write their own studies.

/** The fields a minimal valid target group needs, indented under its key (4 spaces), each line ending in a newline. */
export const MINIMAL_TARGET_GROUP_FIELDS = `    locale: en_US
    live_url: https://survey.example.com/s?rid=[%RID%]
    expected_incidence_rate: 0.5
    expected_length_of_interview_minutes: 10
    filling_goal: 100
    project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"
    collects_pii: false
`;

/** The project manager the sandbox seeds for account 1001. */
export const SEEDED_PROJECT_MANAGER = '6f1c2a4e-3001-4c8e-9d2b-000000003001';

/** What a study asks of the sample (docs/study-format.md): the fields sampleFields writes. */
export interface SampleFields {
  locale?: string;
  incidenceRate: number;
  lengthOfInterviewMinutes: number;
  fillingGoal?: number;
}

/**
 * The lines of a `defaults:` block (indent '  ') or of a target group (indent '    ') that say what sample is
 * asked for and who manages it: locale (when given), expected incidence rate, expected length of interview,
 * filling goal (when given), the seeded project manager and collects_pii false. No newline after the last line.
 */
export function sampleFields(indent: string, sample: SampleFields): string {
  return [
    ...(sample.locale === undefined ? [] : [`locale: ${sample.locale}`]),
    `expected_incidence_rate: ${sample.incidenceRate}`,
    `expected_length_of_interview_minutes: ${sample.lengthOfInterviewMinutes}`,
    ...(sample.fillingGoal === undefined ? [] : [`filling_goal: ${sample.fillingGoal}`]),
    `project_manager_id: "${SEEDED_PROJECT_MANAGER}"`,
    'collects_pii: false',
  ]
    .map((line) => `${indent}${line}`)
    .join('\n');
}

/**
 * The sample lines (sampleFields: incidence 0.6, 8 minutes, the goal when given) of a target group or a
 * `defaults:` block that launches at once and polls its launch job quickly (200 ms, at most 500 ms).
 */
export function quickLaunchFields(indent: string, fillingGoal?: number): string {
  return [
    sampleFields(indent, { incidenceRate: 0.6, lengthOfInterviewMinutes: 8, fillingGoal }),
    `${indent}launch: { mode: auto }`,
    `${indent}timing: { job_poll_initial: 200ms, job_poll_max: 500ms }`,
  ].join('\n');
}
