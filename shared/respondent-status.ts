// The spec's respondent statuses: the terminal statuses a session ends in (what session events report and an
// activity exclusion item's respondent_statuses names). Pure; imports nothing.

export const RESPONDENT_STATUSES = ['Complete', 'Terminate', 'SecurityFailure', 'OverQuota', 'FinancialTerm', 'PreClientSurveyProcess'] as const;

export type RespondentStatus = (typeof RESPONDENT_STATUSES)[number];
