// `studyflow apply` as a person sees it: the real binary under a pseudo-terminal (util-linux
// `script`), the live display redrawn in place, and Ctrl-C detaching while the study goes on.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, REPO_ROOT, writeStudy } from './harness';
import { useTestStack } from '../fixtures/stack';
import { sampleFields } from '../helpers/study-yaml';

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
const STUDY_ID = 'cli-terminal';
const CURSOR_UP = /\u001b\[\d+A/;
const ESCAPES = /\u001b\[[0-9;]*[A-Za-z]/g;

const STUDY = `format: studyflow/v1
study: ${STUDY_ID}
account: "1001"
business_unit: "2001"
project:
  name: CLI under a terminal
  project_customer_reference_number: PO-${STUDY_ID}
defaults:
${sampleFields('  ', { locale: 'en_US', incidenceRate: 0.5, lengthOfInterviewMinutes: 10 })}
  timing: { job_poll_initial: 100ms, job_poll_max: 400ms }
target_groups:
  us_panel:
    live_url: https://survey.example.com/s/us?rid=[%RID%]
    filling_goal: 100
    launch: { mode: auto }
  uk_panel:
    locale: en_GB
    live_url: https://survey.example.com/s/uk?rid=[%RID%]
    filling_goal: 80
    launch: { mode: auto }
`;

/** A shell word in single quotes. */
const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

interface TerminalRun {
  child: ChildProcess;
  /** Everything the terminal showed so far (stdout and stderr share the pseudo-terminal). */
  screen(): string;
  /** Resolves when `script` exits, with the time it did. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/**
 * Runs a command under a pseudo-terminal: `script -qfec 'exec <cmd>' /dev/null`, in its own process
 * group. `script` starts the command through $SHELL; `exec` makes the command the terminal's foreground
 * process itself, as it is when a person types it, whatever the shell (dash, unlike bash, would stay in
 * between and die of the Ctrl-C, so that `script` reported 130 although the command exited 0).
 */
function underTerminal(commandLine: string, env: NodeJS.ProcessEnv): TerminalRun {
  const child = spawn('script', ['-qfec', `exec ${commandLine}`, '/dev/null'], {
    cwd: REPO_ROOT,
    env: { ...env, SHELL: '/bin/sh' },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let screen = '';
  child.stdout!.on('data', (chunk: Buffer) => (screen += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (screen += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return { child, screen: () => screen, exited };
}

describe('studyflow apply under a terminal', () => {
  it('has `script` (util-linux / bsdutils) to run a pseudo-terminal', () => {
    expect(hasScript, 'install bsdutils (Debian) for the `script` command').toBe(true);
  });

  const t = useTestStack('cli-terminal');
  let run: TerminalRun | undefined;
  afterAll(async () => {
    if (run && run.child.exitCode === null && run.child.signalCode === null) process.kill(-run.child.pid!, 'SIGKILL');
    t.stack.sandbox.setFaults({});
  });

  it('redraws a line per target group in place, and Ctrl-C detaches while the study goes on to live', async () => {
    // A slow launch job keeps the study in `launching` long enough to watch it and interrupt.
    t.stack.sandbox.setFaults({ job_duration_ms: 5000 });
    const file = writeStudy(t.dir, 'terminal.yaml', STUDY);
    const env: NodeJS.ProcessEnv = { ...process.env, ...t.env, TERM: 'xterm-256color', COLUMNS: '160', LINES: '40' };
    delete env.NO_COLOR;
    run = underTerminal(`${quote(process.execPath)} bin/studyflow.js apply ${quote(file)}`, env);

    // The display shows both target groups launching with their price (the launch job is slow) and
    // has redrawn the block in place at least once.
    const shown = await eventually(async () => {
      const screen = run!.screen();
      const plain = screen.replace(ESCAPES, '');
      const launching = ['us_panel', 'uk_panel'].every((key) => new RegExp(`^\\s+${key}\\s+launching\\s+cpi=\\d`, 'm').test(plain));
      return launching && CURSOR_UP.test(screen) ? await Promise.resolve(screen) : undefined;
    }, 90_000, 100).catch((error: Error) => {
      throw new Error(`${error.message}; the terminal showed:\n${JSON.stringify(run!.screen())}`);
    });
    expect(shown).toContain('\u001b[2K');
    expect(shown.replace(ESCAPES, '')).toMatch(/terminal\.yaml\s+(applying|planning)\s+\d+s/);
    expect(shown).toMatch(/\u001b\[[0-9;]*m/); // styled on a terminal without NO_COLOR

    const before = await t.status('1001', STUDY_ID);
    expect(Object.values(before.targetGroups).map((tg) => tg.phase)).not.toContain('live');

    // Ctrl-C as a person types it: the terminal turns it into SIGINT for the foreground process.
    const interruptedAt = Date.now();
    run.child.stdin!.write('\u0003');
    const exit = await Promise.race([
      run.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`apply did not exit after Ctrl-C:\n${run!.screen()}`)), 15_000)),
    ]);
    const screen = run.screen().replace(ESCAPES, '');
    expect(exit.at - interruptedAt).toBeLessThan(10_000);
    expect(screen).toContain('detached (still applying)');
    expect(screen).toContain(`the study goes on; follow it with: studyflow status ${path.relative(REPO_ROOT, file)}`);
    expect(screen).not.toMatch(/\n\s+at /);
    expect(exit.code).toBe(0);

    // The workflow never noticed: both target groups reach live on their own.
    const after = await eventually(async () => {
      const status = await t.status('1001', STUDY_ID);
      return Object.values(status.targetGroups).every((tg) => tg.phase === 'live') ? status : undefined;
    }, 120_000, 500);
    expect(after.phase).toBe('converged');
    expect(Object.values(t.stack.sandbox.state().target_groups).filter((tg) => tg.status === 'live')).toHaveLength(2);
  });
});
