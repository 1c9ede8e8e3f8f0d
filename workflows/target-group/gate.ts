import { ApplicationFailure, sleep } from '@temporalio/workflow';
import type { Api } from '../activity-proxies';
import { readGates, type Failure } from '../launch';
import type { GateReading } from '../child-protocol';
import { noticeGateBlocked } from './notifications';
import type { TargetGroupState } from './state';

/** Attempts at a call whose failure came back as a retryable value (the activity's own retry policy, for a batch item). */
export const ITEM_ATTEMPTS = 12;

/** The backoff before attempt `n + 1` of a retryable item (as the activities' retry policy: 0.5 s doubling up to 30 s). */
export function itemBackoffMs(n: number): number {
  return Math.min(30_000, 500 * 2 ** (n - 1));
}

export function itemFailure(failure: Failure): ApplicationFailure {
  return ApplicationFailure.create({ type: failure.type, message: failure.message, nonRetryable: true });
}

/**
 * The launch gate of this revision: the reading the study handed over (never read twice in a
 * revision), else read here. Returns the reading once it passes; settles `gate_blocked` and returns
 * undefined when it holds.
 */
export async function passGate(state: TargetGroupState, api: Api): Promise<GateReading | undefined> {
  const gate = state.revision.launch?.gate ?? (await readGate(state, api));
  state.status.feasibility = gate.feasibility;
  state.status.price = gate.price;
  if (gate.forecast) state.status.launchForecast = gate.forecast;
  if (gate.held.length === 0) return gate;
  state.enter('gate_held', { message: gate.held.join('; ') });
  noticeGateBlocked(state, 'launch', gate.held.join('; '));
  return undefined;
}

async function readGate(state: TargetGroupState, api: Api): Promise<GateReading> {
  const desired = state.revision.desired;
  state.enter('reading_gate');
  for (let attempt = 1; ; attempt += 1) {
    const read = (await readGates(api, [{ desired, ctx: state.ctx, businessUnitId: state.input.businessUnitId }]))[desired.key];
    if (read.ok) return read.gate;
    if (!read.retryable || attempt >= ITEM_ATTEMPTS) throw itemFailure(read.failure);
    await sleep(itemBackoffMs(attempt));
  }
}
