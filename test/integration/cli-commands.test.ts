// The commands that need Temporal (plan against the sandbox, apply, status, approve, cancel,
// fielding) on the suite's real dev server: golden human and JSON output after normalizing what
// varies between runs (temp dir, sandbox ids, timestamps, job poll counts), exit codes 0/1/2, data on
// stdout and progress on stderr, and colour only where it belongs.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliTranscript, expectGolden, literal, normalize, type Replacement } from '../cli/golden';
import { runCli, type CapturedRun } from '../cli/run-cli';
import { eventually, writeStudy } from './harness';
import { useTestStack } from '../fixtures/stack';
import { sampleFields } from '../helpers/study-yaml';

const ACCOUNT = '1001';
const UI = 'http://temporal-ui.test';
const SGR = /\u001b\[[0-9;]*m/;
const ANY_ESCAPE = /\u001b\[/;

function studyYaml(id: string, mode: 'auto' | 'manual'): string {
  return `format: studyflow/v1
study: ${id}
account: "${ACCOUNT}"
business_unit: "2001"
project:
  name: CLI ${id}
  project_customer_reference_number: PO-${id}
defaults:
${sampleFields('  ', { locale: 'en_US', incidenceRate: 0.5, lengthOfInterviewMinutes: 10 })}
  timing: { job_poll_initial: 100ms, job_poll_max: 400ms }
target_groups:
  panel:
    name: Panel sample
    live_url: https://survey.example.com/s/${id}?rid=[%RID%]
    filling_goal: 100
    launch: { mode: ${mode} }
`;
}

const t = useTestStack('cli-commands');
let auto: string;
let manual: string;
let replacements: Replacement[];

/** `studyflow …` against the stack, with fixed links and git revision so only real variation is left. */
async function cli(args: string[], extraEnv: Record<string, string> = {}): Promise<CapturedRun> {
  return await t.cli(args, { STUDYFLOW_TEMPORAL_UI_URL: UI, ...extraEnv });
}

function golden(name: string, result: CapturedRun, parts: { stderr?: boolean } = {}): void {
  const shown = { code: result.code, stdout: normalize(result.stdout, replacements), stderr: parts.stderr === false ? '' : normalize(result.stderr, replacements) };
  expectGolden(`integration/${name}`, cliTranscript(shown));
}

beforeAll(async () => {
  // Live target groups stay live: fielding runs at a crawl, so no simulated completes end them mid-test.
  const slow = await fetch(`${t.stack.sandbox.baseUrl}/_sandbox/fielding/settings`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ speed: 0.001, auto_advance: false }),
  });
  expect(slow.status).toBe(200);
  auto = writeStudy(t.dir, 'auto.yaml', studyYaml('cli-auto', 'auto'));
  manual = writeStudy(t.dir, 'manual.yaml', studyYaml('cli-manual', 'manual'));
  replacements = [
    // The CLI prints files relative to its working directory, the temp dir absolute in some messages.
    literal(path.relative(process.cwd(), t.dir), '<tmp>'),
    literal(t.dir, '<tmp>'),
    // Sandbox ids: a resource prefix and 16 random hex digits (replaced by as many x, so tables stay aligned).
    { pattern: /\b[0-9A-HJKMNP-TV-Z]{26}\b/g, with: 'ULIDxxxxxxxxxxxxxxxxxxxxxx' },
    { pattern: /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b/g, with: '<time>' },
    // The forecast's times as the human views print them (to the minute).
    { pattern: /\b\d{4}-\d\d-\d\d \d\d:\d\d UTC\b/g, with: '<time>' },
    { pattern: /"polls": \d+/g, with: '"polls": <n>' },
    { pattern: /\(poll \d+\)/g, with: '(poll <n>)' },
  ];
});

describe('plan, apply, status of an auto-launched study', () => {
  it('plans against the sandbox before the first apply; --detailed-exitcode says changes are pending', async () => {
    const human = await cli(['plan', auto]);
    expect(human.code).toBe(0);
    expect(human.stderr).toBe('');
    golden('plan-before-apply-human', human);

    const json = await cli(['plan', auto, '--json']);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as { offline: boolean; studies: { hasChanges: boolean }[] };
    expect(parsed.offline).toBe(false);
    expect(parsed.studies[0].hasChanges).toBe(true);
    golden('plan-before-apply-json', json);

    const detailed = await cli(['plan', auto, '--detailed-exitcode']);
    expect(detailed.code).toBe(2);
    expect(detailed.stdout).toBe(human.stdout);
  });

  it('applies the study to live: the result on stdout, progress on stderr, exit 0', async () => {
    const result = await cli(['apply', auto, '--git-revision', 'cli-test-1']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^panel\s+live\s+[0-9A-Z]{26}/m);
    // Progress: the accepted revision first, then one plain line per phase change (no terminal here).
    const progress = normalize(result.stderr, replacements).trimEnd().split('\n');
    expect(progress[0]).toMatch(/^<tmp>\/auto\.yaml: revision [0-9a-f]{16} accepted by study\/1001\/cli-auto$/);
    for (const line of progress.slice(1)) expect(line).toMatch(/^<tmp>\/auto\.yaml: /);
    expect(progress).toContain('<tmp>/auto.yaml: panel: live');
    expect(progress.at(-1)).toMatch(/: (converged|panel: live)$/);
    expect(result.stderr).not.toMatch(ANY_ESCAPE);
    // Which intermediate phases a 500 ms poll catches varies; the final report does not.
    golden('apply-auto-human', result, { stderr: false });
  });

  it('plans no changes after the apply; --detailed-exitcode exits 0', async () => {
    const result = await cli(['plan', auto, '--detailed-exitcode']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('No changes: the API holds what the study file says.');
    golden('plan-after-apply-human', result);
  });

  it('shows the status by file and by id, the UI link on stderr', async () => {
    const byFile = await cli(['status', auto]);
    expect(byFile.code).toBe(0);
    expect(byFile.stderr).toBe(`${UI}/namespaces/default/workflows/study%2F1001%2Fcli-auto\n`);
    golden('status-auto-human', byFile);
    const byId = await cli(['status', 'cli-auto', '--account', ACCOUNT]);
    expect(byId).toEqual(byFile);
    const byEnv = await cli(['status', 'cli-auto'], { STUDYFLOW_ACCOUNT_ID: ACCOUNT });
    expect(byEnv).toEqual(byFile);
  });

  it('prints the status as JSON', async () => {
    const result = await cli(['status', auto, '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const status = JSON.parse(result.stdout) as { workflowId: string; phase: string; gitRevision: string; targetGroups: Record<string, { phase: string }> };
    expect(status).toMatchObject({ workflowId: 'study/1001/cli-auto', phase: 'converged', gitRevision: 'cli-test-1' });
    expect(status.targetGroups.panel.phase).toBe('live');
    golden('status-auto-json', result);
  });

  it('re-applies with --json: one JSON document on stdout, progress on stderr, zero writes', async () => {
    const before = t.stack.sandbox.requests().length;
    const result = await cli(['apply', auto, '--json', '--git-revision', 'cli-test-1']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { studies: { outcome: string; ui: string; status: { phase: string } }[] };
    expect(report.studies).toHaveLength(1);
    expect(report.studies[0]).toMatchObject({ outcome: 'settled', ui: `${UI}/namespaces/default/workflows/study%2F1001%2Fcli-auto` });
    expect(result.stderr).toMatch(/auto\.yaml: revision [0-9a-f]{16} accepted by study\/1001\/cli-auto/);
    const writes = t.stack.sandbox.requests().slice(before).filter((r) => r.method !== 'GET' && r.path.startsWith('/v1'));
    expect(writes).toEqual([]);
    golden('apply-auto-json', result, { stderr: false });
  });

  it('returns after the workflow accepted the revision with --no-wait', async () => {
    const result = await cli(['apply', auto, '--no-wait', '--json', '--git-revision', 'cli-test-1']);
    expect(result.code).toBe(0);
    golden('apply-no-wait-json', result);
  });
});

describe('approval, fielding control and cancel of a manual study', () => {
  it('stops at awaiting_approval; --require-live makes that exit 1', async () => {
    const result = await cli(['apply', manual, '--git-revision', 'cli-test-2']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^panel\s+awaiting_approval/m);
    golden('apply-manual-human', result, { stderr: false });

    const strict = await cli(['apply', manual, '--require-live', '--git-revision', 'cli-test-2']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('not live: panel');
  });

  it('refuses to approve a target group the study does not have, exit 1', async () => {
    const result = await cli(['approve', manual, '--target-group', 'nope']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    golden('approve-unknown-target-group', result);
  });

  it('approves by study id and account; the target group goes live', async () => {
    const result = await cli(['approve', 'cli-manual', '--account', ACCOUNT, '--target-group', 'panel']);
    expect(result.code).toBe(0);
    golden('approve-human', result);
    await eventually(async () => ((await t.status(ACCOUNT, 'cli-manual')).targetGroups.panel.phase === 'live' ? true : undefined));
  });

  it('pauses and resumes the live target group with `fielding`', async () => {
    const paused = await cli(['fielding', 'pause', manual, '--target-group', 'panel']);
    expect(paused.code, paused.stderr).toBe(0);
    golden('fielding-pause-human', paused);
    await eventually(async () => ((await t.status(ACCOUNT, 'cli-manual')).targetGroups.panel.phase === 'paused' ? true : undefined));

    const resumed = await cli(['fielding', 'resume', manual, '--target-group', 'panel', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    golden('fielding-resume-json', resumed);
    await eventually(async () => ((await t.status(ACCOUNT, 'cli-manual')).targetGroups.panel.phase === 'live' ? true : undefined));

    const unknown = await cli(['fielding', 'complete', manual, '--target-group', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    golden('fielding-unknown-target-group', unknown);
  });

  it('cancels the study: exit 0, and its workflow ends cancelled', async () => {
    const result = await cli(['cancel', manual]);
    expect(result.code).toBe(0);
    golden('cancel-human', result);
    const closed = await eventually(async () => {
      const description = await t.client.workflow.getHandle('study/1001/cli-manual').describe();
      return description.status.name === 'RUNNING' ? undefined : description.status.name;
    });
    expect(closed).toBe('CANCELLED');
    // Nothing is deleted in the API: the target group stays where it was.
    const tg = Object.values(t.stack.sandbox.state().target_groups).find((x) => x.target_group_customer_reference_number === 'cli-manual_panel');
    expect(tg?.status).toBe('live');
  });

  // Known CLI bug (see the report): Temporal accepts a cancel request for a closed workflow, so
  // `cancel` prints "cancellation requested" and exits 0 for a study that is no longer managed.
  // Drop `.fails` once cli/commands/cancel.ts checks that the workflow is running.
  it('exits 1 when the study workflow no longer runs', async () => {
    const again = await cli(['cancel', 'cli-manual', '--account', ACCOUNT, '--json']);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
  });
});

describe('failures and usage errors with a server', () => {
  it('exits 1 for a study that was never applied, naming its workflow', async () => {
    for (const command of ['status', 'approve', 'cancel', 'fielding']) {
      const args = command === 'fielding' ? [command, 'pause', 'never-applied', '--account', ACCOUNT, '--target-group', 'panel'] : [command, 'never-applied', '--account', ACCOUNT];
      const result = await cli(args);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      golden(`${command}-never-applied`, result);
    }
  });

  it('exits 1 without starting anything for an invalid file, the diagnostics on stderr', async () => {
    const invalid = writeStudy(t.dir, 'invalid.yaml', studyYaml('cli-invalid', 'auto').replace('filling_goal: 100', 'filling_goal: many'));
    for (const command of ['apply', 'plan']) {
      const result = await cli([command, invalid]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      golden(`${command}-invalid-file`, result);
    }
    await expect(t.client.workflow.getHandle('study/1001/cli-invalid').describe()).rejects.toThrow();
  });

  it('exits 1 with one line when Temporal cannot be reached', async () => {
    const result = await cli(['status', auto], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: cannot reach a service: /);
  });

  it('exits 2 for a study id without an account, before connecting', async () => {
    const result = await cli(['status', 'cli-auto'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(result.code).toBe(2);
  });
});

describe('colour', () => {
  /** The stack's environment without NO_COLOR, which the harness sets for every other test. */
  function envWith(extra: Record<string, string>): Record<string, string> {
    const env: Record<string, string> = { ...t.env, STUDYFLOW_TEMPORAL_UI_URL: UI };
    delete env.NO_COLOR;
    Object.assign(env, extra);
    if (process.env.PATH) env.PATH = process.env.PATH;
    return env;
  }

  it('paints the status for a terminal, and nothing with NO_COLOR or without a terminal', async () => {
    const painted = await runCli(['status', auto], { env: envWith({}), stderrIsTTY: true, stdoutIsTTY: true });
    expect(painted.code).toBe(0);
    expect(painted.stdout).toMatch(SGR);
    const noColor = await runCli(['status', auto], { env: envWith({ NO_COLOR: '1' }), stderrIsTTY: true, stdoutIsTTY: true });
    expect(noColor.stdout + noColor.stderr).not.toMatch(ANY_ESCAPE);
    const piped = await runCli(['status', auto], { env: envWith({}) });
    expect(piped.stdout + piped.stderr).not.toMatch(ANY_ESCAPE);
    expect(noColor.stdout).toBe(piped.stdout);
  });

  it('redraws apply in place on a terminal; NO_COLOR keeps the redraw but drops the colours', async () => {
    const live = await runCli(['apply', auto, '--git-revision', 'cli-test-1'], { env: envWith({}), stderrIsTTY: true, stdoutIsTTY: true });
    expect(live.code).toBe(0);
    expect(live.stderr).toContain('\u001b[2K');
    expect(live.stderr).toMatch(SGR);
    const plain = await runCli(['apply', auto, '--git-revision', 'cli-test-1'], { env: envWith({ NO_COLOR: '1' }), stderrIsTTY: true, stdoutIsTTY: true });
    expect(plain.code).toBe(0);
    expect(plain.stderr).toContain('\u001b[2K');
    expect(plain.stdout + plain.stderr).not.toMatch(SGR);
    const piped = await runCli(['apply', auto, '--git-revision', 'cli-test-1'], { env: envWith({}) });
    expect(piped.stdout + piped.stderr).not.toMatch(ANY_ESCAPE);
  });
});
