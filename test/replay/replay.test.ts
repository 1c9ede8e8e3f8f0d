import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { describe, expect, it } from 'vitest';
import { prebuiltWorkflowBundle } from '../../worker/studyflow-worker';

// One recorded generation of today's workflows (real integration runs, recorded with
// STUDYFLOW_RECORD_HISTORIES=1, see docs/workflows.md) replayed through the code: a change that alters
// the commands of these histories fails here. Before the first release such a change re-records them;
// after it, it is a patch under the rule of docs/deploy.md ("Upgrading studyflow").
const dir = path.join(import.meta.dirname, 'histories');
const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort() : [];

describe('replay of committed workflow histories', () => {
  it('has recorded histories to replay', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it('replays every history without nondeterminism', async () => {
    const histories = files.map((file) => ({
      workflowId: file.replace(/\.json$/, ''),
      history: historyFromJSON(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'))),
    }));
    const failures: string[] = [];
    let replayed = 0;
    for await (const result of Worker.runReplayHistories({ workflowBundle: await prebuiltWorkflowBundle() }, histories)) {
      replayed += 1;
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
    expect(replayed).toBe(files.length);
  }, 120_000);
});
