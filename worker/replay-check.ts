// `studyflow upgrade check`'s replay (docs/deploy.md, "Upgrading studyflow"): workflow histories replayed against
// a workflow bundle, as a worker of that bundle would replay them when a run moves to it or its cache is cold. A
// history that the bundle's code would not reproduce (a nondeterminism error) is named with its reason. The study
// client gathers the histories (client/upgrade.ts); this is the one part that needs @temporalio/worker.
import fs from 'node:fs';
import type { temporal } from '@temporalio/proto';
import { Worker, type WorkflowBundle } from '@temporalio/worker';
import { dataConverterFromEnv } from '../temporal/temporal-connection';
import { installRuntimeLogging } from './runtime-logging';
import { prebuiltWorkflowBundle } from './studyflow-worker';

/** One history to replay, by its workflow id. */
export interface ReplayInput {
  workflowId: string;
  history: temporal.api.history.v1.IHistory;
}

/** What the replay of one history gave: ok, or the reason it failed (`nondeterminism` or another replay error). */
export interface ReplayOutcome {
  workflowId: string;
  ok: boolean;
  failure?: { kind: 'nondeterminism' | 'error'; message: string };
}

/** The workflow bundle at `file`, or (no file) the one this studyflow's workers run (STUDYFLOW_WORKFLOW_BUNDLE, the package's). */
export async function replayBundle(file?: string): Promise<WorkflowBundle> {
  if (!file) return await prebuiltWorkflowBundle();
  try {
    return { code: await fs.promises.readFile(file, 'utf8') };
  } catch (error) {
    throw new Error(`the workflow bundle ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/**
 * Replays each history against the bundle; one outcome per history, in order. Payloads are decoded with the keys of
 * `env` (STUDYFLOW_CODEC_KEYS / STUDYFLOW_CODEC_KEY_FILE), as the workers decode them.
 */
export async function replayHistories(bundle: WorkflowBundle, histories: ReplayInput[], env: NodeJS.ProcessEnv = process.env): Promise<ReplayOutcome[]> {
  // The SDK's own log lines (the replay worker starting and stopping, each failed replay) go through studyflow's
  // runtime logging at its level (STUDYFLOW_LOG_LEVEL, default WARN): the outcomes below carry what failed.
  installRuntimeLogging(env);
  const outcomes: ReplayOutcome[] = [];
  const replayer = Worker.runReplayHistories({ workflowBundle: bundle, dataConverter: dataConverterFromEnv(env) }, histories);
  for await (const result of replayer) {
    if (!result.error) outcomes.push({ workflowId: result.workflowId, ok: true });
    else {
      const kind = result.error.name === 'DeterminismViolationError' ? 'nondeterminism' : 'error';
      outcomes.push({ workflowId: result.workflowId, ok: false, failure: { kind, message: result.error.message } });
    }
  }
  return outcomes;
}
