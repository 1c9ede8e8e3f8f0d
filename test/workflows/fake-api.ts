// An in-memory Demand API behind the activity names the workflows call: what the workflow unit tests
// register instead of the real activities. It records every call (with the target groups it was about
// and the launch Idempotency-Keys), answers gates from a rule the test sets, and can hold an activity
// until the test lets it go.
import type {
  AwaitJobInput,
  AwaitJobOutput,
  CheckLaunchGatesBatchInput,
  DraftBatchItem,
  EnsureDraftTargetGroupsInput,
  LaunchAndAwaitBatchInput,
  LaunchAndAwaitInput,
} from '../../activities';
import { ApplicationFailure } from '@temporalio/common';
import type { ObserveStudyInput } from '../../activities/observe-study';
import type { DesiredTargetGroup, ObservedStudy } from '../../plan/types';

export interface FakeCall {
  activity: string;
  /** The target groups (keys) the call was about, in order. */
  keys: string[];
  /** Launches: the Idempotency-Key of each launch sent, by key. */
  launchKeys?: Record<string, string>;
}

interface FakeTargetGroup {
  id: string;
  key: string;
  status: 'draft' | 'scheduled' | 'live' | 'paused' | 'completed';
  draft: Record<string, unknown>;
  /** A run scheduled from the draft: when it starts (the exchange starts it on its own once the time has come). */
  startAt?: number;
  /** The ID lists uploaded to it, as the observation reports them. */
  idLists?: Record<string, { sha256: string; count: number }>;
  fieldingRunId?: string;
}

export class FakeApi {
  readonly calls: FakeCall[] = [];
  private readonly tgs = new Map<string, FakeTargetGroup>();
  private readonly jobs = new Map<string, { tgId: string; fails: boolean }>();
  private projectId?: string;
  private exclusionGroups = new Map<string, { id: string; members: Set<string> }>();
  private seq = 0;
  /** Whether a target group's gate passes: by default every filling goal up to 500 is feasible. */
  feasible: (key: string, fillingGoal: number) => boolean = (_key, fillingGoal) => fillingGoal <= 500;
  /** Launch jobs of these target groups end Failed. */
  readonly failingLaunches = new Set<string>();
  /** The answer to the first launch of these target groups is lost (the launch went through): a retryable failure. */
  readonly lostLaunchAnswers = new Set<string>();
  /** The request each launch Idempotency-Key was first sent with: a key sent again with another request is refused, as the API does. */
  private readonly launchRequests = new Map<string, string>();
  /** Completes the performance reading answers, by target-group key (0 when absent). */
  readonly completes: Record<string, number> = {};
  /** completes_cost by key (USD), as a performance read answers it; 0.00 when not set. */
  readonly costs: Record<string, string> = {};
  private readonly holds = new Map<string, { until: Promise<void>; release: () => void; reached: Promise<void>; arrive: () => void }>();
  /** Each target group's `updated_at` as the list answers it: moved whenever its status, fields or run changed. */
  private readonly updated = new Map<string, { digest: string; at: string }>();
  private updates = 0;

  /** Holds the next call of `activity` until {@link release}; resolves once that call arrived. */
  hold(activity: string): Promise<void> {
    let release = () => undefined as void;
    let arrive = () => undefined as void;
    const until = new Promise<void>((r) => (release = r));
    const reached = new Promise<void>((r) => (arrive = r));
    this.holds.set(activity, { until, release, reached, arrive });
    return reached;
  }

  release(activity: string): void {
    this.holds.get(activity)?.release();
    this.holds.delete(activity);
  }

  /** The calls of one activity. */
  callsOf(activity: string): FakeCall[] {
    return this.calls.filter((c) => c.activity === activity);
  }

  statusOf(key: string): string | undefined {
    const tg = [...this.tgs.values()].find((t) => t.key === key);
    return tg && this.started(tg).status;
  }

  /** A scheduled run whose start has come is live, as the exchange starts it. */
  private started(tg: FakeTargetGroup): FakeTargetGroup {
    if (tg.status === 'scheduled' && tg.startAt !== undefined && Date.now() >= tg.startAt) tg.status = 'live';
    return tg;
  }

  private async record(activity: string, keys: string[], launchKeys?: Record<string, string>): Promise<void> {
    this.calls.push({ activity, keys, ...(launchKeys ? { launchKeys } : {}) });
    const hold = this.holds.get(activity);
    if (hold) {
      hold.arrive();
      await hold.until;
    }
  }

  private keyOfId(id: string): string {
    return this.tgs.get(id)?.key ?? `?${id}`;
  }

  private launch(tgId: string): { jobId: string | null; alreadyLaunched: boolean; fieldingRunId: string | null } {
    const tg = this.tgs.get(tgId);
    if (!tg) throw new Error(`no target group ${tgId}`);
    if (tg.status !== 'draft') return { jobId: null, alreadyLaunched: true, fieldingRunId: tg.fieldingRunId ?? null };
    const jobId = `job-${++this.seq}`;
    this.jobs.set(jobId, { tgId, fails: this.failingLaunches.has(tg.key) });
    return { jobId, alreadyLaunched: false, fieldingRunId: null };
  }

  /** The job ends at its first poll: Failed, or Completed with the target group live. */
  private poll(jobId: string): AwaitJobOutput {
    const job = this.jobs.get(jobId);
    if (!job) return { status: 'Completed', polls: 1, done: true };
    if (job.fails) return { status: 'Failed', failureReason: 'injected launch failure', polls: 1, done: true };
    const tg = this.tgs.get(job.tgId) as FakeTargetGroup;
    if (tg.status === 'draft') {
      tg.status = 'live';
      tg.fieldingRunId = `run-${tg.id}`;
    }
    return { status: 'Completed', fieldingRunId: tg.fieldingRunId, polls: 1, done: true };
  }

  private ensureDraft(item: DraftBatchItem): { targetGroupId: string; created: boolean } {
    const key = item.idempotencyKey.split('/target-group/')[1];
    const existing = [...this.tgs.values()].find((t) => t.key === key);
    if (existing) return { targetGroupId: existing.id, created: false };
    const id = `tg-${++this.seq}`;
    this.tgs.set(id, { id, key, status: 'draft', draft: { ...item.desired } });
    return { targetGroupId: id, created: true };
  }

  readonly activities = {
    observeStudy: async (input: ObserveStudyInput): Promise<ObservedStudy> => {
      await this.record('observeStudy', []);
      const targetGroups: ObservedStudy['targetGroups'] = {};
      // The declared target groups, and those the study remembers that the file no longer declares.
      const removed = Object.keys(input.known.targetGroupIds).filter((key) => !input.desired.targetGroups.some((tg) => tg.key === key));
      for (const tg of [...input.desired.targetGroups, ...removed.map((key) => ({ key }))]) {
        const held = [...this.tgs.values()].find((t) => t.key === tg.key);
        if (held) {
          // The draft as sent, its profiling included (a draft's profiles travel in its own body).
          const fields = { ...held.draft };
          targetGroups[tg.key] = { id: held.id, status: held.status, fields, idLists: { ...held.idLists }, fieldingRunId: held.fieldingRunId ?? null };
        }
      }
      const exclusionGroups = Object.fromEntries([...this.exclusionGroups.entries()].map(([name, g]) => [name, { id: g.id, targetGroupIds: [...g.members] }]));
      return { ...(this.projectId ? { project: { id: this.projectId, fields: { ...input.desired.project } } } : {}), targetGroups, exclusionGroups, webhooks: {} };
    },
    ensureProject: async () => {
      await this.record('ensureProject', []);
      const created = !this.projectId;
      this.projectId ??= `prj-${++this.seq}`;
      return { project: { id: this.projectId }, created };
    },
    updateProject: async () => {
      await this.record('updateProject', []);
      return { project: { id: this.projectId } };
    },
    ensureExclusionGroup: async (input: { desired: { name: string }; idempotencyKey: string }) => {
      const name = input.idempotencyKey.split('/exclusion-group/')[1];
      await this.record('ensureExclusionGroup', [name]);
      const created = !this.exclusionGroups.has(name);
      if (created) this.exclusionGroups.set(name, { id: `eg-${++this.seq}`, members: new Set() });
      return { exclusionGroup: { id: this.exclusionGroups.get(name)?.id }, created };
    },
    addTargetGroupsToExclusionGroup: async (input: { exclusionGroupId: string; targetGroupIds: string[] }) => {
      await this.record('addTargetGroupsToExclusionGroup', input.targetGroupIds.map((id) => this.keyOfId(id)));
      const group = [...this.exclusionGroups.values()].find((g) => g.id === input.exclusionGroupId);
      for (const id of input.targetGroupIds) group?.members.add(id);
      return {};
    },
    removeTargetGroupsFromExclusionGroup: async (input: { exclusionGroupId: string; targetGroupIds: string[] }) => {
      await this.record('removeTargetGroupsFromExclusionGroup', input.targetGroupIds.map((id) => this.keyOfId(id)));
      const group = [...this.exclusionGroups.values()].find((g) => g.id === input.exclusionGroupId);
      for (const id of input.targetGroupIds) group?.members.delete(id);
      return {};
    },
    ensureDraftTargetGroups: async (input: EnsureDraftTargetGroupsInput) => {
      const keys = input.items.map((i) => i.idempotencyKey.split('/target-group/')[1]);
      const launchKeys: Record<string, string> = {};
      await this.record('ensureDraftTargetGroups', keys, launchKeys);
      return {
        results: input.items.map((item, n) => {
          const draft = this.ensureDraft(item);
          if (item.launch) launchKeys[keys[n]] = `${item.launch.idempotencyKeyPrefix}/${draft.targetGroupId}`;
          return { ok: true as const, ...draft, ...(item.launch ? { launch: { ok: true as const, ...this.launch(draft.targetGroupId) } } : {}) };
        }),
      };
    },
    ensureDraftTargetGroup: async (input: DraftBatchItem) => {
      await this.record('ensureDraftTargetGroup', [input.idempotencyKey.split('/target-group/')[1]]);
      const draft = this.ensureDraft(input);
      return { targetGroup: { id: draft.targetGroupId }, created: draft.created };
    },
    updateDraftTargetGroup: async (input: { targetGroupId: string; desired: Record<string, unknown> }) => {
      await this.record('updateDraftTargetGroup', [this.keyOfId(input.targetGroupId)]);
      const tg = this.tgs.get(input.targetGroupId) as FakeTargetGroup;
      tg.draft = { ...input.desired };
      return { targetGroup: { id: tg.id, ...tg.draft } };
    },
    manageProfiles: async (input: { targetGroupId: string; request: { profiling: unknown } }) => {
      await this.record('manageProfiles', [this.keyOfId(input.targetGroupId)]);
      const tg = this.tgs.get(input.targetGroupId) as FakeTargetGroup;
      tg.draft = { ...tg.draft, profiling: input.request.profiling };
      return { result: {} };
    },
    uploadIdList: async (input: { targetGroupId: string; entityType: string; list: { sha256: string; count: number } }) => {
      await this.record('uploadIdList', [this.keyOfId(input.targetGroupId)]);
      const tg = this.tgs.get(input.targetGroupId) as FakeTargetGroup;
      tg.idLists = { ...tg.idLists, [input.entityType]: { sha256: input.list.sha256, count: input.list.count } };
      // A job the fake does not track completes on its first poll.
      return { jobId: `upload-${input.targetGroupId}-${input.entityType}` };
    },
    checkLaunchGatesBatch: async (input: CheckLaunchGatesBatchInput) => {
      const keys = input.items.map((i) => KEY_OF_LOI.get(Number(i.feasibility.expected_length_of_interview_minutes)) ?? '?');
      await this.record('checkLaunchGatesBatch', keys);
      return {
        results: input.items.map((item, n) => {
          const goal = Number(item.feasibility.filling_goal);
          const feasible = this.feasible(keys[n], goal);
          const max = feasible ? goal * 10 : Math.floor(goal / 2);
          return { ok: true as const, feasibility: { suggested_price: { value: '2.50', currency_code: 'USD' }, suggested_completes_goal_range: { min: Math.floor(max * 0.9), max } } };
        }),
      };
    },
    launchAndAwaitBatch: async (input: LaunchAndAwaitBatchInput) => {
      const keys = input.items.map((i) => this.keyOfId(i.targetGroupId));
      await this.record('launchAndAwaitBatch', keys, Object.fromEntries(input.items.map((i, n) => [keys[n], i.idempotencyKey])));
      return {
        results: input.items.map((item: LaunchAndAwaitInput, n) => {
          const request = JSON.stringify({ targetGroupId: item.targetGroupId, endFieldingAt: item.endFieldingAt });
          const first = this.launchRequests.get(item.idempotencyKey);
          if (first !== undefined && first !== request) {
            return { ok: false as const, retryable: false, failure: { type: 'idempotency_key_reused', message: 'This Idempotency-Key was already used with a different request' } };
          }
          this.launchRequests.set(item.idempotencyKey, request);
          const launched = this.launch(item.targetGroupId);
          if (this.lostLaunchAnswers.delete(keys[n])) return { ok: false as const, retryable: true, failure: { type: 'network_error', message: 'injected: the answer was lost' } };
          return { ok: true as const, ...launched, ...(launched.jobId ? { job: this.poll(launched.jobId) } : {}) };
        }),
      };
    },
    awaitJobsBatch: async (input: { items: AwaitJobInput[] }) => {
      await this.record('awaitJobsBatch', input.items.map((i) => this.keyOfId(i.targetGroupId)));
      return { results: input.items.map((i) => ({ ok: true as const, ...this.poll(i.jobId) })) };
    },
    awaitJob: async (input: AwaitJobInput) => {
      await this.record('awaitJob', [this.keyOfId(input.targetGroupId)]);
      return this.poll(input.jobId);
    },
    getLaunchJob: async (input: { jobId: string; targetGroupId: string }) => {
      await this.record('getLaunchJob', [this.keyOfId(input.targetGroupId)]);
      return this.poll(input.jobId);
    },
    readTargetGroupState: async (input: { targetGroupId: string; reads: string[] }) => {
      await this.record('readTargetGroupState', [this.keyOfId(input.targetGroupId)]);
      const tg = this.started(this.tgs.get(input.targetGroupId) as FakeTargetGroup);
      // As the reader answers: a draft with its fields; a launched group with what the caller asked for.
      const draft = tg.status === 'draft';
      const fields = draft || input.reads.includes('fields') ? { ...tg.draft } : {};
      return {
        state: {
          id: tg.id,
          status: draft || input.reads.includes('status') ? tg.status : 'launched',
          fields,
          fieldsRead: Object.keys(fields),
          fieldingRunId: !draft && input.reads.includes('fieldingRun') ? (tg.fieldingRunId ?? null) : null,
        },
      };
    },
    getTargetGroupPerformance: async (input: { targetGroupId: string }) => {
      await this.record('getTargetGroupPerformance', [this.keyOfId(input.targetGroupId)]);
      // TargetGroupPerformance: no status (the watch knows the phase from the overview).
      const key = this.keyOfId(input.targetGroupId);
      const completes = this.completes[key] ?? 0;
      return { performance: { entrants: completes, prescreens: completes, completes, completes_cost: { value: this.costs[key] ?? '0.00', currency_code: 'USD', currency_scale: 2 } } };
    },
    // get_list_target_groups' statistics of every target group the fake holds: its status and completes.
    listTargetGroupFigures: async () => {
      const tgs = [...this.tgs.values()].map((tg) => this.started(tg));
      // A read of the project, not of one target group: recorded without keys.
      await this.record('listTargetGroupFigures', []);
      return {
        figures: tgs.map((tg) => {
          const completes = this.completes[this.keyOfId(tg.id)] ?? 0;
          return { id: tg.id, status: tg.status, completes, prescreens: completes, updatedAt: this.updatedAt(tg) };
        }),
      };
    },
    scheduleLaunchFromDraft: async (input: { targetGroupId: string; startFieldingAt: string; endFieldingAt: string; idempotencyKey: string }) => {
      const key = this.keyOfId(input.targetGroupId);
      await this.record('scheduleLaunchFromDraft', [key], { [key]: input.idempotencyKey });
      const tg = this.tgs.get(input.targetGroupId) as FakeTargetGroup;
      if (tg.status === 'draft') Object.assign(tg, { status: 'scheduled', startAt: Date.parse(input.startFieldingAt), fieldingRunId: `run-${tg.id}` });
      return { jobId: `schedule-${tg.id}` };
    },
    getScheduleLaunchJob: async (input: { targetGroupId: string; jobId: string }) => {
      await this.record('getScheduleLaunchJob', [this.keyOfId(input.targetGroupId)]);
      return { status: 'Completed', fieldingRunId: this.tgs.get(input.targetGroupId)?.fieldingRunId };
    },
    getFieldingRun: async (input: { targetGroupId: string }) => {
      await this.record('getFieldingRun', [this.keyOfId(input.targetGroupId)]);
      return { run: { status: this.tgs.get(input.targetGroupId)?.status }, etag: `"${++this.seq}"` };
    },
    pauseFieldingRun: (input: { targetGroupId: string }) => this.control('pauseFieldingRun', input.targetGroupId, ['live'], 'paused'),
    resumeFieldingRun: (input: { targetGroupId: string }) => this.control('resumeFieldingRun', input.targetGroupId, ['paused'], 'live'),
    completeFieldingRun: (input: { targetGroupId: string }) => this.control('completeFieldingRun', input.targetGroupId, ['live'], 'completed'),
    relaunchFieldingRun: async (input: { targetGroupId: string }) => {
      const answer = await this.control('relaunchFieldingRun', input.targetGroupId, ['completed'], 'live');
      return { outcome: answer.outcome, state: { id: 'run', status: answer.run.status, etag: answer.etag }, ...(answer.detail ? { detail: answer.detail } : {}) };
    },
    // Feasibility of a change to a launched group: the gate's rule on the completes goal asked for.
    liveFeasibility: async (input: { targetGroupId: string; whatIf: { completes_goal?: number } }) => {
      const key = this.keyOfId(input.targetGroupId);
      await this.record('liveFeasibility', [key]);
      const goal = input.whatIf.completes_goal ?? 0;
      return { suggestedPrice: { value: '3.50', currency_code: 'USD' }, completesGoalRange: { min: 1, max: this.feasible(key, goal) ? goal + 100 : goal - 1 } };
    },
    // update_profile_filling_goal as the operation answers: already_in_state without a write when it holds.
    updateLiveFillingGoal: async (input: { targetGroupId: string; completesGoal?: number }) => {
      const tg = this.tgs.get(input.targetGroupId) as FakeTargetGroup;
      const state = () => ({ completesGoal: Number(tg.draft.filling_goal), quotaGoals: [] });
      if (input.completesGoal === undefined || tg.draft.filling_goal === input.completesGoal) return { outcome: 'already_in_state', state: state() };
      await this.record('updateLiveFillingGoal', [tg.key]);
      if (this.refusedLiveWrites.has(tg.key)) throw ApplicationFailure.create({ type: 'invalid_request', message: 'injected refusal of the goal', nonRetryable: true });
      tg.draft = { ...tg.draft, filling_goal: input.completesGoal };
      return { outcome: 'applied', state: state() };
    },
  };

  /** Refuses the in-place writes of these target groups (a 4xx of the exchange). */
  readonly refusedLiveWrites = new Set<string>();

  /** A fielding control as the exchange answers it: applied from `from`, already there, or invalid_state. */
  private async control(activity: string, targetGroupId: string, from: string[], to: FakeTargetGroup['status']) {
    const tg = this.tgs.get(targetGroupId) as FakeTargetGroup;
    if (tg.status === to) return { outcome: 'already_in_state', run: { status: to }, etag: `"${++this.seq}"` };
    if (!from.includes(tg.status)) return { outcome: 'invalid_state', run: { status: tg.status }, etag: `"${++this.seq}"`, detail: `the run is ${tg.status}` };
    await this.record(activity, [tg.key]);
    tg.status = to;
    return { outcome: 'applied', run: { status: to }, etag: `"${++this.seq}"` };
  }

  /** The target group's `updated_at`: a new time once its status, fields or fielding run differ from the last list read. */
  private updatedAt(tg: FakeTargetGroup): string {
    const digest = JSON.stringify([tg.status, tg.draft, tg.fieldingRunId ?? null]);
    const known = this.updated.get(tg.id);
    if (known?.digest === digest) return known.at;
    const at = new Date(Date.UTC(2026, 0, 1) + ++this.updates).toISOString();
    this.updated.set(tg.id, { digest, at });
    return at;
  }

  /** Changes a field of a target group as the exchange's UI would (no call recorded): drift from the file. */
  setField(key: string, field: string, value: unknown): void {
    const tg = [...this.tgs.values()].find((t) => t.key === key);
    if (tg) tg.draft = { ...tg.draft, [field]: value };
  }

  /** Changes a target group's status as the exchange's UI would (no call recorded). */
  setStatus(key: string, status: FakeTargetGroup['status']): void {
    const tg = [...this.tgs.values()].find((t) => t.key === key);
    if (tg) tg.status = status;
  }
}

/** Gate reads carry no key: each test target group has a length of interview of its own, and this finds it back. */
const KEY_OF_LOI = new Map<number, string>();

/** A target group as `desiredStudyOf` makes it, small (its length of interview tells its gate reads apart). */
export function targetGroup(key: string, patch: Partial<DesiredTargetGroup> = {}): DesiredTargetGroup {
  let loi = [...KEY_OF_LOI.entries()].find(([, k]) => k === key)?.[0];
  if (loi === undefined) {
    loi = 5 + KEY_OF_LOI.size;
    KEY_OF_LOI.set(loi, key);
  }
  return {
    key,
    draft: { name: key, locale: 'en_US', expected_incidence_rate: 0.5, expected_length_of_interview_minutes: loi, filling_goal: 100, project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001', collects_pii: false },
    idLists: {},
    exclusionGroups: [],
    launch: { mode: 'auto', requireFeasible: true },
    timing: { jobPollInitialMs: 10, jobPollMaxMs: 50, jobTimeoutMs: 30_000, launchRetries: 2, watchIntervalMs: 600_000 },
    ...patch,
  };
}
