// The object the worker registers: the names the lead calls, plain async functions, the rate-limit constants.
import { describe, expect, it } from 'vitest';
import { API_TASK_QUEUE, createActivities, DEFAULT_API_ACTIVITIES_PER_SECOND } from '../../activities/index';
import { createMockActivities } from './helpers/mock-activities';

const EXPECTED = [
  'getAccounts',
  'getBusinessUnits',
  'ensureProject', 'updateProject', 'getProject', 'getProjectOverview',
  'ensureDraftTargetGroup', 'ensureDraftTargetGroups', 'updateDraftTargetGroup', 'readTargetGroupState', 'listTargetGroups', 'listTargetGroupFigures', 'getTargetGroupOverview', 'getTargetGroupPerformance',
  'calculateFeasibility', 'generatePricePrediction', 'checkLaunchGatesBatch', 'launchAndAwaitBatch',
  'getActivityExclusions', 'putActivityExclusions',
  'uploadIdList', 'getIdListJob', 'listExcludedIds', 'removeAllExcludedIds', 'getRemoveAllJob',
  'listExclusionGroups', 'ensureExclusionGroup', 'updateExclusionGroup', 'deleteExclusionGroup', 'listExclusionGroupTargetGroups',
  'addTargetGroupsToExclusionGroup', 'removeTargetGroupsFromExclusionGroup', 'getTargetGroupExclusionGroups',
  'validateProfiles', 'manageProfiles', 'supplierQuotaDistribution', 'getQuestionTexts',
  'uploadRecontactList', 'getRecontactJob',
  'suggestTimeRange', 'suggestDays',
  'listWebhooks', 'createWebhook', 'updateWebhook', 'deleteWebhook',
  'launchFromDraft', 'getLaunchJob', 'getFieldingRun', 'pauseFieldingRun', 'resumeFieldingRun', 'completeFieldingRun',
  'awaitJob', 'awaitJobsBatch',
  'sendNotification',
  'observeStudy',
  // Live target groups (activities/live-target-groups.ts, issue 28).
  'readLiveTargetGroup', 'updateLiveFillingGoal', 'updateLiveFieldingWindow', 'relaunchFieldingRun', 'launchScheduledRunNow', 'scheduleLaunchFromDraft',
  'getScheduleLaunchJob', 'updateLiveDetails', 'updateLiveCostPerInterview', 'updateLiveAllocations', 'updateLiveFieldingAssistant', 'liveFeasibility',
  // Soft launches (issue 38).
  'setSoftLaunchModule', 'readOverviewFigures',
  // Quotas in view (issue 38).
  'readQuotaFigures',
  // The close-out (activities/closeout.ts, issue 36).
  'observeCloseout', 'submitReversals', 'submitApprovedCompletesList', 'awaitReconciliation', 'archiveCloseoutReport',
];

describe('createActivities', () => {
  it('exposes exactly the agreed activity names, each a function', async () => {
    const m = createMockActivities();
    const activities: ReturnType<typeof createActivities> = m.activities;
    expect(Object.keys(activities).sort()).toEqual([...EXPECTED].sort());
    for (const fn of Object.values(activities)) expect(typeof fn).toBe('function');
    await m.agent.close();
  });

  it('exports the API task queue and its default rate', () => {
    expect(API_TASK_QUEUE).toBe('studyflow-api');
    expect(DEFAULT_API_ACTIVITIES_PER_SECOND).toBe(20);
  });
});
