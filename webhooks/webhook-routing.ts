import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { targetGroupEventOnceUpdate, webhookEventUpdateId, type WebhookEventSignal } from '../workflows/messages';

/**
 * Routes a verified webhook event to the workflow of its target group: found once through the
 * `StudyflowTargetGroupId` search attribute (the API's id), then cached. Events for target groups
 * studyflow does not manage are dropped (and counted). The event goes as an Update whose id comes from
 * the event id, so the workflow takes it once even when several receivers (sharing no cache) pass on
 * the same delivery: the duplicates come back as `duplicate` and are counted.
 */
export class WebhookEventRouter {
  private readonly workflowIds = new Map<string, string>();
  readonly counts = { routed: 0, duplicates: 0, unmanaged: 0, withoutTargetGroup: 0 };

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
    let outcome: 'accepted' | 'duplicate';
    try {
      outcome = await this.client.workflow
        .getHandle(workflowId)
        .executeUpdate(targetGroupEventOnceUpdate, { args: [event], updateId: webhookEventUpdateId(event.id) });
    } catch (error) {
      // The workflow ended since it was looked up (a completed target group): no longer managed.
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      this.workflowIds.delete(event.targetGroupId);
      this.counts.unmanaged += 1;
      return;
    }
    // A repeated update id is answered with the first outcome ('accepted'); 'duplicate' means the
    // workflow's own set caught it (another run, or a signal). Either way it was taken once.
    if (outcome === 'duplicate') this.counts.duplicates += 1;
    else this.counts.routed += 1;
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
