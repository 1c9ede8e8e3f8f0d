import type { StudyStep } from '../../plan/program';
import type { ApplyRun } from './run';

/** Creates or updates one of the study's webhooks (the secret goes to the worker's secret store, never into history). */
export async function writeWebhook({ state, api, desired, observed }: ApplyRun, step: Extract<StudyStep, { kind: 'webhook' }>): Promise<void> {
  const hook = desired.webhooks.find((w) => w.url === step.url);
  if (!hook) return;
  const desiredHook = { url: hook.url, events: hook.events, compression: hook.compression };
  const ctx = state.ctx();
  if (step.mode === 'create') {
    const result = await api(`create webhook ${step.url}`).createWebhook({ ctx, idempotencyKey: state.keyFor(`webhook/${step.url}`), desired: desiredHook });
    if (result.created) state.countWrites();
    return;
  }
  const remote = observed.webhooks?.[step.url];
  if (!remote) return;
  await api(`update webhook ${step.url}`).updateWebhook({ ctx, webhookId: remote.id, desired: desiredHook });
  state.countWrites();
}
