// Path templates shared by the route modules (spec: P = {base_url}/v1/demand/accounts/{account_id}).
export const P = '/v1/demand/accounts/{account_id}';
export const PROJECTS = `${P}/projects`;
export const PROJECT = `${PROJECTS}/{project_id}`;
export const TARGET_GROUPS = `${PROJECT}/target-groups`;
/** `TG` of docs/api-conventions.md. */
export const TG = `${TARGET_GROUPS}/{target_group_id}`;
/** `X` of the spec: the ID-based exclusions prefix. */
export const X = `${TG}/exclusions`;
