import type { StudySchedule } from '../../plan/schedule';
import type { DesiredStudy, ObservedStudy } from '../../plan/types';
import type { Api } from '../activity-proxies';
import type { StudyState } from './state';

/** Creates and updates the study's webhooks (the secret goes to the worker's secret store, never into history). */
export async function writeWebhooks(state: StudyState, api: Api, desired: DesiredStudy, schedule: StudySchedule, observed: ObservedStudy): Promise<void> {
  const ctx = state.ctx();
  const wanted = (url: string) => {
    const hook = desired.webhooks.find((w) => w.url === url);
    return hook && { url: hook.url, events: hook.events, compression: hook.compression };
  };
  for (const url of schedule.webhooks.create) {
    const desiredHook = wanted(url);
    if (!desiredHook) continue;
    const result = await api(`create webhook ${url}`).createWebhook({ ctx, idempotencyKey: state.keyFor(`webhook/${url}`), desired: desiredHook });
    if (result.created) state.countWrites();
  }
  for (const url of schedule.webhooks.update) {
    const desiredHook = wanted(url);
    const remote = observed.webhooks?.[url];
    if (!desiredHook || !remote) continue;
    await api(`update webhook ${url}`).updateWebhook({ ctx, webhookId: remote.id, desired: desiredHook });
    state.countWrites();
  }
}
