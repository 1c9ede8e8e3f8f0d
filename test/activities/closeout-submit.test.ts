// A close-out chunk is submitted once, whatever happens between the exchange committing it and the worker hearing
// of it: the sandbox commits the submission and drops the answer (a worker lost the moment its POST reached the
// exchange); the retry looks the chunk up by its name and posts nothing again. Real HTTP against the sandbox.
import { describe, expect, it } from 'vitest';
import { uuidFromName } from '../../shared/sha256';
import { useSandboxHarness } from '../fixtures/activities';
import { runWithRetries } from './helpers/retry-like-temporal';
import { ctx } from './helpers/sandbox-harness';

const h = useSandboxHarness();
const policy = { maximumAttempts: 10, initialIntervalMs: 5, backoffCoefficient: 1.5, maximumIntervalMs: 50 };
const rid = (n: number) => `0e8b5c1a-1234-4abc-8def-${String(n).padStart(12, '0')}`;
const posts = () => h.sandbox.requests().filter((r) => r.method === 'POST' && r.path.split('?')[0].endsWith('/reconciliations'));

describe('submitReversals', () => {
  it('drop-after-commit: the retry finds the committed submission by its name, one submission in the exchange', async () => {
    const { activities } = h.connect();
    await activities.getAccounts({ ctx }); // the token first, so the fault meets the submission
    const delta = await h.blobs.put([`${rid(1)},11\n`, `${rid(2)},11\n`, `${rid(3)},932\n`]);
    const name = 'closeout-study-0123456789ab-1';
    h.sandbox.setFaults({ drop_after_commit_rate: 1 });
    const run = await runWithRetries(
      () => activities.submitReversals({ ctx, name, idempotencyKey: uuidFromName(name), delta: { ref: delta.ref }, from: 0, rows: 3 }),
      policy,
      () => h.sandbox.setFaults({}),
    );
    expect(run.attempts).toBe(2);
    expect(run.failures[0]).toMatchObject({ type: 'network_error', nonRetryable: false });
    expect(run.result.found).toBe(true);
    expect(posts()).toHaveLength(1);
    expect(posts()[0].dropped).toBe(true);
    // A re-apply asks again by name: found, nothing posted.
    const again = await activities.submitReversals({ ctx, name, idempotencyKey: uuidFromName(name), delta: { ref: delta.ref }, from: 0, rows: 3 });
    expect(again).toEqual({ requestId: run.result.requestId, found: true });
    expect(posts()).toHaveLength(1);
  });

  it('posts rows [from, from + rows) of the delta: a second chunk carries only its own rows', async () => {
    const { activities } = h.connect();
    const delta = await h.blobs.put(Array.from({ length: 5 }, (_, i) => `${rid(i + 10)},11\n`));
    const second = await activities.submitReversals({ ctx, name: 'closeout-study-abcdefabcdef-2', idempotencyKey: uuidFromName('closeout-study-abcdefabcdef-2'), delta: { ref: delta.ref }, from: 3, rows: 2 });
    expect(second.found).toBe(false);
    // The exchange holds exactly those two rows (its state: the submissions live among its slices).
    const held = JSON.stringify(h.sandbox.state());
    expect(held).toContain('closeout-study-abcdefabcdef-2');
    for (const n of [13, 14]) expect(held).toContain(rid(n));
    for (const n of [10, 11, 12]) expect(held).not.toContain(rid(n));
  });
});
