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
