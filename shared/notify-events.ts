// The events studyflow notifies people of (a study's `notify:` block), and what each carries. Vocabulary only:
// definitions/ checks the names, notify/ renders them, workflows/ raise them. No event carries a secret, a
// token, a URL or a respondent id: the fields are the study's own names, figures and reasons.

export const NOTIFY_EVENTS = ['gate_blocked', 'guard_tripped', 'launch_failed', 'drift_found', 'target_group_completed', 'budget_reached', 'closeout_deadline', 'soft_launch_decided'] as const;
export type NotifyEventKind = (typeof NOTIFY_EVENTS)[number];

export function isNotifyEventKind(value: unknown): value is NotifyEventKind {
  return typeof value === 'string' && (NOTIFY_EVENTS as readonly string[]).includes(value);
}

/** What every event names: the study, where in it, and when (workflow time, ISO 8601). */
interface EventBase {
  studyId: string;
  /** The target group's local key, when the event is about one. */
  targetGroup?: string;
  /** ISO 8601 time the event happened (the workflow's clock). */
  at: string;
}

/** An amount of money as figures (`{ amount: 1250.5, currency: 'USD' }`). */
export interface MoneyFigure {
  amount: number;
  currency: string;
}

export type NotificationEvent =
  | (EventBase & { kind: 'gate_blocked'; gate: string; reason: string })
  | (EventBase & { kind: 'guard_tripped'; guard: string; reading: string; threshold: string; /** What the guard does: pause the target group, or only notify. */ action?: 'pause' | 'notify' })
  | (EventBase & { kind: 'launch_failed'; reason: string })
  | (EventBase & { kind: 'drift_found'; fields: string[] })
  | (EventBase & { kind: 'target_group_completed'; completes: number; goal?: number })
  | (EventBase & { kind: 'budget_reached'; spent: MoneyFigure; budget: MoneyFigure })
  /** A target group's reconciliation window closes soon and its close-out is not applied: RIDs still to reverse, where the close-out stands. */
  | (EventBase & { kind: 'closeout_deadline'; closesAt: string; daysLeft: number; toReverse: number; phase: string })
  /**
   * A soft launch was judged (or an operator decided an inconclusive one): its outcome, what studyflow did, and the
   * evidence as lines (each metric's value, thresholds and sample size; counts and rates only).
   */
  | (EventBase & { kind: 'soft_launch_decided'; outcome: 'pass' | 'fail' | 'inconclusive'; action: string; completes: number; evidence: string[] });

/** A resolved `notify:` target: the NAME of the environment variable that holds the URL, never the URL. */
export interface NotifyTarget {
  envName: string;
  events: NotifyEventKind[];
}

/** The environment variable a `${NAME}` reference names, or undefined when the text is not exactly one reference. */
export function envReferenceName(text: string): string | undefined {
  return /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(text)?.[1];
}
