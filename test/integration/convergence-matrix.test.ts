// The convergence matrix (issue 35; the table: test/integration/convergence/matrix.ts, docs/workflows.md): each cell
// takes one study into a state, makes one change (a new revision of the file, or an operator control) and asserts the
// convergence rule of DESIGN.md:
// 1. apply exits with the code docs/cli.md names for the outcome (within the harness's bound);
// 2. the exchange holds what the file says;
// 3. what studyflow shows agrees with the exchange at once: apply's final status (its table), `status`, and each
//    target group's StudyflowPhase search attribute, with no watch tick in between;
// 4. a second re-apply writes nothing and `plan --detailed-exitcode` exits 0 (3 where the file asks for a change the
//    exchange refuses: the cell says so).
// Every cell is its own study, and the cells run side by side on one stack, phase by phase.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StudyStatus, TargetGroupPhase } from '../../workflows/messages';
import { studyWorkflowId, targetGroupWorkflowId } from '../../workflows/messages';
import { eventually, startTestStack, writeCalls, writeStudy, type CliResult, type TestStack } from './harness';
import { sampleFields } from '../helpers/study-yaml';
import { TESTED } from './convergence/matrix';

const ACCOUNT = '1001';
/**
 * The watch reads each study's list every 30 s (sent with the revision): no cell waits for a watch tick, since what
 * studyflow shows must agree at once. Only a cell that needs readings (the budget's spend) watches every 2 s, so the
 * side-by-side studies do not flood the one worker and server with watch events.
 */
const WATCH_MS = 30_000;
/** What one cell may take in one phase (its apply follows for 180 s at most): past it the cell fails, named. */
const CELL_DEADLINE_MS = 240_000;
/** Far enough ahead that nothing scheduled starts during the test. */
const LATER = '2027-03-01T13:00:00Z';
const LATER_MOVED = '2027-03-02T13:00:00Z';

type Exchange = 'draft' | 'scheduled' | 'live' | 'paused' | 'completed';

interface CellContext {
  t: TestStack;
  study: string;
  file: string;
  cli(args: string[]): Promise<CliResult>;
}

interface Cell {
  id: string;
  /** The target groups of the first revision, by key (body lines indented under the key), and study-level lines. */
  first: { groups: Record<string, string>; extra?: string; apiVersion?: string };
  /** The exit codes the first apply may end with (default 0 or 4). */
  firstExit?: number[];
  /** What makes the state beyond the first apply (the exchange completes it, a control, ...). */
  reach?: (c: CellContext) => Promise<void>;
  /**
   * Its reach advances the sandbox's fielding simulation, which moves every live target group: it runs alone, before
   * the other cells launch anything.
   */
  alone?: boolean;
  /** Its watch interval, when it needs the watch's readings (default WATCH_MS). */
  watchMs?: number;
  /** Before the first apply (a fault of the exchange). */
  before?: (c: CellContext) => Promise<void>;
  /** The change: a second revision, or an operator control (then the file is applied again unchanged). */
  change?: { groups: Record<string, string>; extra?: string };
  control?: (c: CellContext) => Promise<CliResult>;
  controlExit?: number;
  /** The exit code of the cell's apply, of the re-apply after it, and of `plan --detailed-exitcode` then. */
  applyExit: number;
  reapplyExit?: number;
  planExit?: number;
  /** What the exchange holds after the change, and the phase studyflow shows, by target group. */
  exchange: Record<string, Exchange>;
  phases: Record<string, TargetGroupPhase>;
  /** More to check of the exchange and the status once the change is applied. */
  check?: (c: CellContext, status: StudyStatus) => Promise<void> | void;
}

// Goals far above what the simulation fields while a cell advances it (the budget cell advances it slowly, alone).
const goal = (n: number) => `filling_goal: ${n * 20}`;
const group = (lines: string[]) => lines.join('\n');

const CELLS: Cell[] = [
  {
    id: 'draft-reapply',
    first: { groups: { a: group([goal(100), 'fielding: paused']) } },
    applyExit: 0,
    exchange: { a: 'draft' },
    phases: { a: 'draft' },
  },
  {
    id: 'draft-fielding-live',
    first: { groups: { a: group([goal(100), 'fielding: paused']) } },
    change: { groups: { a: group([goal(100), 'fielding: live']) } },
    applyExit: 0,
    exchange: { a: 'live' },
    phases: { a: 'live' },
  },
  {
    id: 'gate-blocked-reapply',
    first: { groups: { a: group([goal(100), 'launch: { mode: auto, max_cpi: { value: "0.01", currency_code: USD } }']) } },
    applyExit: 4,
    reapplyExit: 4,
    planExit: 3,
    exchange: { a: 'draft' },
    phases: { a: 'gate_blocked' },
  },
  {
    id: 'approval-reapply',
    first: { groups: { a: group([goal(100), 'launch: { mode: manual }']) } },
    applyExit: 0,
    exchange: { a: 'draft' },
    phases: { a: 'awaiting_approval' },
  },
  {
    id: 'scheduled-reapply',
    first: { groups: { a: group([goal(100), `launch: { at: "${LATER}" }`]) } },
    applyExit: 0,
    exchange: { a: 'scheduled' },
    phases: { a: 'scheduled' },
  },
  {
    id: 'scheduled-launch-at',
    first: { groups: { a: group([goal(100), `launch: { at: "${LATER}" }`]) } },
    change: { groups: { a: group([goal(100), `launch: { at: "${LATER_MOVED}" }`]) } },
    applyExit: 0,
    exchange: { a: 'scheduled' },
    phases: { a: 'scheduled' },
    check: (c, status) => {
      const run = runOf(c.t, c.study, 'a');
      expect(Date.parse(String(run?.started_at))).toBe(Date.parse(LATER_MOVED));
      expect(Date.parse(String(status.targetGroups.a.launchAt))).toBe(Date.parse(LATER_MOVED));
    },
  },
  {
    id: 'timer-reapply',
    first: { groups: { a: group([goal(100), `launch: { at: "${LATER}" }`]) }, apiVersion: '2025-05-27' },
    applyExit: 0,
    exchange: { a: 'draft' },
    phases: { a: 'scheduled' },
  },
  {
    id: 'awaiting-reapply',
    first: { groups: { up: group([goal(100), `launch: { at: "${LATER}" }`]), a: group([goal(100), 'launch: { after: { target_group: up, completes: 50 } }']) } },
    applyExit: 0,
    exchange: { up: 'scheduled', a: 'draft' },
    phases: { up: 'scheduled', a: 'awaiting_completes' },
  },
  {
    id: 'awaiting-launch-after',
    first: { groups: { up: group([goal(100), `launch: { at: "${LATER}" }`]), a: group([goal(100), 'launch: { after: { target_group: up, completes: 50 } }']) } },
    change: { groups: { up: group([goal(100), `launch: { at: "${LATER}" }`]), a: group([goal(100), 'launch: { after: { target_group: up, completes: 60 } }']) } },
    applyExit: 0,
    exchange: { up: 'scheduled', a: 'draft' },
    phases: { up: 'scheduled', a: 'awaiting_completes' },
    check: (_c, status) => expect(status.targetGroups.a.launchAfter).toMatchObject({ targetGroup: 'up', completes: 60 }),
  },
  {
    id: 'live-reapply',
    first: { groups: { a: goal(100) } },
    applyExit: 0,
    exchange: { a: 'live' },
    phases: { a: 'live' },
  },
  {
    id: 'live-goal',
    first: { groups: { a: goal(100) } },
    change: { groups: { a: goal(140) } },
    applyExit: 0,
    exchange: { a: 'live' },
    phases: { a: 'live' },
    check: (c) => expect(remote(c.t, c.study, 'a')?.filling_goal ?? remote(c.t, c.study, 'a')?.completes_goal).toBe(2800),
  },
  {
    id: 'live-window',
    first: { groups: { a: group([goal(100), 'end_fielding_at: 2027-05-01T00:00:00Z']) } },
    change: { groups: { a: group([goal(100), 'end_fielding_at: 2027-06-01T00:00:00Z']) } },
    applyExit: 0,
    exchange: { a: 'live' },
    phases: { a: 'live' },
    check: (c) => expect(Date.parse(String(runOf(c.t, c.study, 'a')?.end_fielding_at))).toBe(Date.parse('2027-06-01T00:00:00Z')),
  },
  {
    id: 'live-fielding-paused',
    first: { groups: { a: goal(100) } },
    change: { groups: { a: group([goal(100), 'fielding: paused']) } },
    applyExit: 0,
    exchange: { a: 'paused' },
    phases: { a: 'paused' },
  },
  {
    id: 'live-removal-complete',
    first: { groups: { a: goal(100), b: goal(100) }, extra: 'removed_target_groups: complete' },
    change: { groups: { a: goal(100) }, extra: 'removed_target_groups: complete' },
    applyExit: 0,
    exchange: { a: 'live', b: 'completed' },
    phases: { a: 'live', b: 'completed' },
  },
  {
    id: 'live-blocked-locale',
    first: { groups: { a: goal(100) } },
    change: { groups: { a: group([goal(100), 'locale: en_GB']) } },
    applyExit: 4,
    reapplyExit: 4,
    planExit: 3,
    exchange: { a: 'live' },
    phases: { a: 'live' },
  },
  {
    id: 'live-control-pause',
    first: { groups: { a: goal(100) } },
    control: (c) => c.cli(['fielding', 'pause', c.file, '--target-group', 'a']),
    // The file says live: the apply after the operator's pause resumes it.
    applyExit: 0,
    exchange: { a: 'live' },
    phases: { a: 'live' },
  },
  {
    id: 'paused-reapply',
    first: { groups: { a: group([goal(100), 'fielding: paused']) } },
    reach: async (c) => {
      await writeFirst(c, { a: goal(100) });
      await writeFirst(c, { a: group([goal(100), 'fielding: paused']) });
    },
    applyExit: 0,
    exchange: { a: 'paused' },
    phases: { a: 'paused' },
  },
  {
    id: 'paused-fielding-live',
    first: { groups: { a: goal(100) } },
    reach: async (c) => void (await writeFirst(c, { a: group([goal(100), 'fielding: paused']) })),
    change: { groups: { a: goal(100) } },
    applyExit: 0,
    exchange: { a: 'live' },
    phases: { a: 'live' },
  },
  {
    id: 'completed-reapply',
    first: { groups: { a: goal(100) } },
    reach: async (c) => void (await writeFirst(c, { a: group([goal(100), 'fielding: completed']) })),
    change: { groups: { a: group([goal(100), 'fielding: completed']) } },
    applyExit: 0,
    exchange: { a: 'completed' },
    phases: { a: 'completed' },
  },
  {
    id: 'completed-relaunch',
    first: { groups: { a: goal(100) } },
    reach: async (c) => void (await writeFirst(c, { a: group([goal(100), 'fielding: completed']) })),
    change: { groups: { a: group([goal(100), 'fielding: live']) } },
    applyExit: 0,
    exchange: { a: 'live' },
    phases: { a: 'live' },
  },
  {
    id: 'budget-cut',
    first: { groups: { a: goal(100) }, extra: 'budget: { value: "100000.00", currency_code: USD }' },
    alone: true,
    watchMs: 2_000,
    reach: async (c) => {
      // Some spend, as the watch reads it (the simulation advanced slowly, while no other cell fields: far from its goal).
      await sandboxAdmin(c.t, 'PUT', '/fielding/settings', { speed: 6, auto_advance: false });
      await eventually(async () => {
        await sandboxAdmin(c.t, 'POST', '/fielding/advance', { minutes: 2 });
        const spent = Number((await c.t.status(ACCOUNT, c.study)).budget?.spent?.value ?? 0);
        return spent > 0 ? true : undefined;
      }, 120_000, 1_000);
    },
    // A revision cuts the budget below the spend: the study pauses the live group, and apply's table says so. The file
    // still says live: held paused by the budget is a change not made (exit 4, plan 3) until a revision raises it.
    change: { groups: { a: goal(100) }, extra: 'budget: { value: "0.01", currency_code: USD }' },
    applyExit: 4,
    reapplyExit: 4,
    planExit: 3,
    exchange: { a: 'paused' },
    phases: { a: 'paused' },
    check: (_c, status) => expect(status.budget?.reached?.paused).toEqual(['a']),
  },
  {
    id: 'failed-reapply',
    first: { groups: { a: group([goal(100), 'timing: { launch_retries: 1 }']) } },
    firstExit: [1, 4],
    alone: true,
    // Every job of the exchange fails while this cell launches; the faults are lifted before the others start.
    before: async (c) => sandboxAdmin(c.t, 'POST', '/faults', { job_failure_rate: 1 }),
    reach: async (c) => {
      await sandboxAdmin(c.t, 'POST', '/faults', {});
      await eventually(async () => ((await c.t.status(ACCOUNT, c.study)).targetGroups.a?.phase === 'failed' ? true : undefined), 60_000);
    },
    // The re-apply retries from the top: launched now.
    applyExit: 0,
    exchange: { a: 'live' },
    phases: { a: 'live' },
  },
  {
    id: 'removed-kept-reapply',
    first: { groups: { a: goal(100), b: goal(100) }, extra: 'removed_target_groups: keep' },
    change: { groups: { a: goal(100) }, extra: 'removed_target_groups: keep' },
    applyExit: 0,
    exchange: { a: 'live', b: 'live' },
    phases: { a: 'live', b: 'live' },
  },
];

function studyYaml(study: string, groups: Record<string, string>, extra = '', apiVersion?: string): string {
  const tgs = Object.entries(groups)
    .map(([key, body]) => `  ${key}:\n    live_url: https://survey.example.com/s/${study}-${key}?rid=[%RID%]\n${body.split('\n').map((l) => `    ${l}`).join('\n')}\n`)
    .join('');
  return `format: studyflow/v1
${apiVersion ? `api_version: "${apiVersion}"\n` : ''}study: ${study}
account: "${ACCOUNT}"
business_unit: "2001"
project:
  name: Convergence ${study}
${extra ? `${extra}\n` : ''}defaults:
${sampleFields('  ', { locale: 'en_US', incidenceRate: 0.6, lengthOfInterviewMinutes: 8 })}
  launch: { mode: auto }
  end_fielding_at: 2027-06-30T00:00:00Z
  timing: { job_poll_initial: 200ms, job_poll_max: 500ms }
target_groups:
${tgs}`;
}

async function sandboxAdmin(t: TestStack, method: string, route: string, body: unknown): Promise<void> {
  const res = await fetch(`${t.stack.sandbox.baseUrl}/_sandbox${route}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, `${method} ${route}`).toBe(200);
}

type Remote = Record<string, unknown> & { id: string; status: string };
function remote(t: TestStack, study: string, key: string): Remote | undefined {
  return Object.values(t.stack.sandbox.state().target_groups).find((g) => g.target_group_customer_reference_number === `${study}_${key}`) as Remote | undefined;
}
function runOf(t: TestStack, study: string, key: string): Record<string, unknown> | undefined {
  const tg = remote(t, study, key);
  const runs = (t.stack.sandbox.state() as unknown as { fielding_runs: Record<string, Record<string, unknown>> }).fielding_runs;
  return tg ? Object.values(runs).find((r) => r.target_group_id === tg.id) : undefined;
}

/** The phases of studyflow that say the exchange's status. */
const AGREES: Record<Exchange, readonly TargetGroupPhase[]> = {
  draft: ['draft', 'gate_blocked', 'awaiting_approval', 'awaiting_completes', 'scheduled', 'failed'],
  scheduled: ['scheduled'],
  live: ['live'],
  paused: ['paused'],
  completed: ['completed'],
};

async function writeFirst(c: CellContext, groups: Record<string, string>, extra?: string): Promise<CliResult> {
  writeStudy(c.t.dir, `${c.study}.yaml`, studyYaml(c.study, groups, extra));
  const result = await c.cli(['apply', c.file]);
  expect(result.code, `${c.study}: ${result.stdout}${result.stderr}`).toBe(0);
  return result;
}

interface Walked {
  cell: Cell;
  c: CellContext;
  applied?: CliResult;
  reapplied?: CliResult;
  planned?: CliResult;
  writesOnReapply?: number;
  failed?: boolean;
}

let t: TestStack;
const walked = new Map<string, Walked>();

beforeAll(async () => {
  t = await startTestStack('convergence');
  // No simulated fielding unless a cell advances it: live groups stay live.
  await sandboxAdmin(t, 'PUT', '/fielding/settings', { auto_advance: false });
}, 180_000);
afterAll(async () => t?.stop());

/**
 * Runs `work` for every cell still standing, a few at a time (the machine has two cores). A cell that fails is
 * reported with its id and left out of the later phases; the others go on.
 */
async function eachCell(work: (w: Walked) => Promise<void>, width = 6, which: (w: Walked) => boolean = () => true): Promise<void> {
  const queue = [...walked.values()].filter((w) => !w.failed && which(w));
  const failures: string[] = [];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let w = queue.shift(); w; w = queue.shift()) {
        try {
          let timer: NodeJS.Timeout | undefined;
          const deadline = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no outcome within ${CELL_DEADLINE_MS / 1000} s`)), CELL_DEADLINE_MS);
          });
          await Promise.race([work(w), deadline]).finally(() => clearTimeout(timer));
        } catch (error) {
          w.failed = true;
          failures.push(`${w.cell.id}: ${error instanceof Error ? error.message : String(error)}${await taskFailures(w.c.study)}`);
        }
      }
    }),
  );
  expect(failures).toEqual([]);
}

/** The last workflow task failures of a study's workflows (what a failing cell reports besides its own assertion). */
async function taskFailures(study: string): Promise<string> {
  const lines: string[] = [];
  const ids = [studyWorkflowId(ACCOUNT, study)];
  for await (const wf of t.client.workflow.list({ query: `StudyflowStudy = "${study}"` })) ids.push(wf.workflowId);
  for (const id of new Set(ids)) {
    const history = await t.client.workflow.getHandle(id).fetchHistory().catch(() => undefined);
    const failed = (history?.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes).at(-1);
    const failure = failed?.workflowTaskFailedEventAttributes?.failure;
    if (failure) lines.push(`${id}: workflow task failed: ${failure.message ?? '?'} ${(failure.stackTrace ?? '').split('\n').slice(0, 6).join(' | ')}`);
  }
  return lines.length ? `\n  ${lines.join('\n  ')}` : '';
}

function studyOf(id: string): string {
  return `cm-${id}`;
}

describe('the convergence matrix', () => {
  it('names a cell for every tested mark of the table, and a mark for every cell', () => {
    const ids = new Set(CELLS.map((c) => c.id));
    for (const [mark, id] of Object.entries(TESTED)) expect(ids.has(id), `${mark} -> ${id}`).toBe(true);
    const marked = new Set(Object.values(TESTED));
    for (const id of ids) expect(marked.has(id), `cell ${id} has no mark in the table`).toBe(true);
  });

  it('takes every cell to its state', async () => {
    for (const cell of CELLS) {
      const study = studyOf(cell.id);
      const file = `${t.dir}/${study}.yaml`;
      // apply follows for 3 minutes at most: a revision that does not settle fails its cell, named, instead of the phase.
      const cli = (args: string[]) => t.cli(args[0] === 'apply' ? [...args, '--timeout', '180'] : args, { STUDYFLOW_WATCH_INTERVAL_MS: String(cell.watchMs ?? WATCH_MS) });
      walked.set(cell.id, { cell, c: { t, study, file, cli } });
    }
    const reach = async ({ cell, c }: Walked) => {
      await cell.before?.(c);
      writeStudy(t.dir, `${c.study}.yaml`, studyYaml(c.study, cell.first.groups, cell.first.extra, cell.first.apiVersion));
      const first = await c.cli(['apply', c.file]);
      expect(cell.firstExit ?? [0, 4], `${cell.id} first apply: ${first.stdout}${first.stderr}`).toContain(first.code);
      await cell.reach?.(c);
    };
    await eachCell(reach, 1, (w) => w.cell.alone === true);
    await eachCell(reach, 6, (w) => w.cell.alone !== true);
  }, 600_000);

  it('applies each cell\'s change: the exit code, the exchange, and what studyflow shows agree at once', async () => {
    await eachCell(async (w) => {
      const { cell, c } = w;
      if (cell.change) writeStudy(t.dir, `${c.study}.yaml`, studyYaml(c.study, cell.change.groups, cell.change.extra, cell.first.apiVersion));
      if (cell.control) {
        const controlled = await cell.control(c);
        expect(controlled.code, `${cell.id} control: ${controlled.stdout}${controlled.stderr}`).toBe(cell.controlExit ?? 0);
      }
      w.applied = await c.cli(['apply', c.file, '--json']);
      expect(w.applied.code, `${cell.id} apply: ${w.applied.stdout}${w.applied.stderr}`).toBe(cell.applyExit);
      // At once: apply's final status, the status query and the search attributes, with the exchange.
      const appliedStatus = (JSON.parse(w.applied.stdout) as { studies: { status: StudyStatus }[] }).studies[0].status;
      const queried = await t.status(ACCOUNT, c.study);
      for (const [key, exchange] of Object.entries(cell.exchange)) {
        expect(remote(t, c.study, key)?.status, `${cell.id}: ${key} in the exchange`).toBe(exchange);
        const phase = cell.phases[key];
        expect(AGREES[exchange], `${cell.id}: ${key}'s phase ${phase} says the exchange's ${exchange}`).toContain(phase);
        expect(appliedStatus.targetGroups[key]?.phase, `${cell.id}: ${key} in apply's table`).toBe(phase);
        expect(queried.targetGroups[key]?.phase, `${cell.id}: ${key} in status`).toBe(phase);
        const described = await t.client.workflow.getHandle(targetGroupWorkflowId(ACCOUNT, c.study, key)).describe();
        expect(described.searchAttributes.StudyflowPhase, `${cell.id}: ${key}'s StudyflowPhase`).toEqual([phase]);
      }
      await cell.check?.(c, queried);
    });
  }, 600_000);

  it('re-applies each cell with no write, and plan --detailed-exitcode says nothing is pending', async () => {
    const since = new Date().toISOString();
    await eachCell(async (w) => {
      const { cell, c } = w;
      w.reapplied = await c.cli(['apply', c.file]);
      expect(w.reapplied.code, `${cell.id} re-apply: ${w.reapplied.stdout}${w.reapplied.stderr}`).toBe(cell.reapplyExit ?? 0);
      w.planned = await c.cli(['plan', c.file, '--detailed-exitcode']);
      expect(w.planned.code, `${cell.id} plan: ${w.planned.stdout}${w.planned.stderr}`).toBe(cell.planExit ?? 0);
    });
    const log = (await (await fetch(`${t.stack.sandbox.baseUrl}/_sandbox/requests`)).json()) as { data: { method: string; path: string; time: string }[] };
    const writes = writeCalls(log.data.filter((r) => r.time >= since));
    for (const w of [...walked.values()].filter((x) => !x.failed)) {
      const projectId = (await t.status(ACCOUNT, w.c.study)).projectId as string;
      const ofStudy = writes.filter((r) => r.path.includes(`/projects/${projectId}`));
      expect(ofStudy.map((r) => `${r.method} ${r.path}`), `${w.cell.id}: writes of the re-apply`).toEqual([]);
    }
    // The study workflows are all there (the ids are the study's).
    for (const w of [...walked.values()].filter((x) => !x.failed)) expect((await t.client.workflow.getHandle(studyWorkflowId(ACCOUNT, w.c.study)).describe()).status.name).toBe('RUNNING');
  }, 600_000);
});
