import type { Client } from '@temporalio/client';
import { targetGroupEventSignal, type WebhookEventSignal } from '../workflows/messages';

/**
 * Routes a verified webhook event to the workflow of its target group: found once through the
 * `StudyflowTargetGroupId` search attribute (the API's id), then cached. Events for target groups
 * studyflow does not manage are dropped (and counted).
 */
export class WebhookEventRouter {
  private readonly workflowIds = new Map<string, string>();
  readonly counts = { routed: 0, unmanaged: 0, withoutTargetGroup: 0 };

  constructor(
    private readonly client: Client,
    private readonly lookupRetries = 3,
  ) {}

  async route(event: WebhookEventSignal): Promise<void> {
    if (!event.targetGroupId) {
      this.counts.withoutTargetGroup += 1;
      return;
    }
    const workflowId = await this.workflowIdOf(event.targetGroupId);
    if (!workflowId) {
      this.counts.unmanaged += 1;
      return;
    }
    await this.client.workflow.getHandle(workflowId).signal(targetGroupEventSignal, event);
    this.counts.routed += 1;
  }

  private async workflowIdOf(targetGroupId: string): Promise<string | undefined> {
    const cached = this.workflowIds.get(targetGroupId);
    if (cached) return cached;
    const query = `StudyflowTargetGroupId = "${targetGroupId.replace(/["\\]/g, '')}" AND ExecutionStatus = "Running"`;
    // Visibility is eventually consistent: a just-started workflow may need a moment to be listed.
    for (let attempt = 0; attempt < this.lookupRetries; attempt += 1) {
      for await (const wf of this.client.workflow.list({ query, pageSize: 1 })) {
        this.workflowIds.set(targetGroupId, wf.workflowId);
        return wf.workflowId;
      }
      await new Promise((resolve) => setTimeout(resolve, 200 * (attempt + 1)));
    }
    return undefined;
  }
}
