// Seeded accounts and credentials (docs/api-conventions.md). Static configuration, not state.

export interface SeededAccount {
  account_id: number;
  name: string;
  business_unit_ids: number[];
  /** Project manager user ids (UUIDs, as the reference types them: UserID). */
  project_manager_ids: string[];
  /** `respondent_status_exclusions` allows activity-exclusion statuses other than Complete. */
  features: string[];
}

export interface SandboxCredentials {
  client_id: string;
  client_secret: string;
  audience: string;
}

export const FEATURE_RESPONDENT_STATUS_EXCLUSIONS = 'respondent_status_exclusions';

export const SEEDED_CREDENTIALS: Readonly<SandboxCredentials> = Object.freeze({
  client_id: 'studyflow-sandbox',
  client_secret: 'sandbox-secret',
  audience: 'https://demand-api.sandbox.local',
});

/**
 * A second client of the same audience whose tokens lack the intelligent-calendar role (the spec's
 * "the caller lacks the role required" case); everything else it may do.
 */
export const SEEDED_CLIENT_WITHOUT_CALENDAR_ROLE: Readonly<{ client_id: string; client_secret: string }> = Object.freeze({
  client_id: 'studyflow-sandbox-no-calendar',
  client_secret: 'sandbox-secret-no-calendar',
});

export const SEEDED_ACCOUNTS: readonly SeededAccount[] = Object.freeze([
  {
    account_id: 1001,
    name: 'Sandbox Research Buyer',
    business_unit_ids: [2001, 2002],
    project_manager_ids: ['6f1c2a4e-3001-4c8e-9d2b-000000003001', '6f1c2a4e-3002-4c8e-9d2b-000000003002'],
    features: [FEATURE_RESPONDENT_STATUS_EXCLUSIONS],
  },
  {
    account_id: 1002,
    name: 'Sandbox Basic Buyer',
    business_unit_ids: [2101],
    project_manager_ids: ['6f1c2a4e-3101-4c8e-9d2b-000000003101'],
    features: [],
  },
]);

export const findSeededAccount = (accountId: string): SeededAccount | undefined =>
  SEEDED_ACCOUNTS.find((a) => String(a.account_id) === accountId);

export const accountHasFeature = (account: SeededAccount, feature: string) => account.features.includes(feature);
