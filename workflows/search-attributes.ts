import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Typed search attributes of studyflow's workflows. Values are business identifiers only (study id,
// account id, target-group key, phase, git revision): never names of people, tokens or respondent IDs.
export const STUDY_ID = defineSearchAttributeKey('StudyflowStudy', SearchAttributeType.KEYWORD);
export const ACCOUNT_ID = defineSearchAttributeKey('StudyflowAccount', SearchAttributeType.KEYWORD);
export const TARGET_GROUP_KEY = defineSearchAttributeKey('StudyflowTargetGroup', SearchAttributeType.KEYWORD);
export const PHASE = defineSearchAttributeKey('StudyflowPhase', SearchAttributeType.KEYWORD);
export const GIT_REVISION = defineSearchAttributeKey('StudyflowRevision', SearchAttributeType.KEYWORD);
/** The Demand API's id of the target group a child workflow manages (webhook deliveries are routed by it). */
export const REMOTE_TARGET_GROUP_ID = defineSearchAttributeKey('StudyflowTargetGroupId', SearchAttributeType.KEYWORD);

/** Registered with the dev server (`--search-attribute NAME=TYPE`) and documented for clusters. */
export const SEARCH_ATTRIBUTE_TYPES: Record<string, 'Keyword'> = {
  StudyflowStudy: 'Keyword',
  StudyflowAccount: 'Keyword',
  StudyflowTargetGroup: 'Keyword',
  StudyflowPhase: 'Keyword',
  StudyflowRevision: 'Keyword',
  StudyflowTargetGroupId: 'Keyword',
};
