import { Command, CommanderError, Option } from 'commander';
import { CliError, Output, type Streams } from './output';
import { API_PROFILES } from '../shared/api-profile';
import { describeError, StudyClientError } from '../client/errors';
import { mark, startTimeline, timelineLine } from '../client/timeline';

export interface CliContext {
  out: Output;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Resolves when the user presses Ctrl-C (SIGINT); long commands detach or stop on it. */
  interrupted: Promise<void>;
}

const VERSION = '0.1.0';

/** Builds the `studyflow` command tree. Each command module does its work; this file only wires them. */
export function buildProgram(ctx: CliContext, setExit: (code: number) => void): Command {
  const program = new Command('studyflow')
    .description('Study-as-code for survey sample buyers: validate, plan and apply study files against the Demand Exchange API as durable Temporal workflows.')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => ctx.out.streams.stdout.write(s),
      writeErr: (s) => ctx.out.streams.stderr.write(s),
      getOutHelpWidth: () => (ctx.out.streams.stdout as { columns?: number }).columns ?? 80,
      getErrHelpWidth: () => (ctx.out.streams.stderr as { columns?: number }).columns ?? 80,
      getOutHasColors: () => ctx.out.dataColor,
      getErrHasColors: () => ctx.out.color,
    })
    .exitOverride();

  const json = () => new Option('--json', 'machine-readable output on stdout');
  /** `--profile` of `dev` and `sandbox`: default STUDYFLOW_API_PROFILE, else sandbox (the command refuses an unknown one). */
  const apiProfileOption = (description: string) =>
    new Option('--profile <name>', description).choices(['sandbox', 'cint']).default(ctx.env.STUDYFLOW_API_PROFILE?.trim() || 'sandbox', '$STUDYFLOW_API_PROFILE, else sandbox');
  const allowOutsidePaths = () =>
    new Option('--allow-outside-paths', 'let ID list files lie outside the study repository (the git work tree of the study file)');
  /** `--target-group` and `--except` of plan and apply: repeatable, each a target group's key (a partial apply, plan/scope.ts). */
  const repeated = (value: string, prior: string[] = []) => [...prior, value];
  const onlyTargetGroup = () =>
    new Option('--target-group <key>', 'only this target group (repeatable): its changes and the study-level ones it needs; the others stay pending').argParser(repeated);
  const exceptTargetGroup = () => new Option('--except <key>', 'all target groups but this one (repeatable); it stays pending').argParser(repeated);
  const profile = () =>
    new Option('--profile <name>', 'the connection profile whose API the study is checked against (default: STUDYFLOW_API_PROFILE, else sandbox)').choices([...API_PROFILES]);
  const run = (loader: () => Promise<{ run: (ctx: CliContext, ...args: any[]) => Promise<number> }>) =>
    async (...args: any[]) => {
      const mod = await loader();
      mark('command-loaded');
      setExit(await mod.run(ctx, ...args.slice(0, -1)));
    };

  program
    .command('validate')
    .description('check study files and directories; errors as file:line:col: message')
    .argument('<paths...>', 'study files or directories')
    .addOption(new Option('--format <format>', 'output format').choices(['human', 'github', 'json']).default('human'))
    .addOption(json())
    .addOption(allowOutsidePaths())
    .addOption(profile())
    .action(run(() => import('./commands/validate')));

  program
    .command('schema')
    .description('print the JSON Schema (draft-07) of the study format')
    .action(run(() => import('./commands/schema')));

  program
    .command('plan')
    .description('show what apply would change, without writing')
    .argument('<paths...>', 'study files or directories')
    .addOption(new Option('--format <format>', 'output format').choices(['human', 'json', 'markdown', 'github']).default('human'))
    .addOption(json())
    .option('--detailed-exitcode', 'exit 2 when changes are pending, 3 when some change cannot be applied, 0 when none, 1 on error')
    .option('--offline', 'plan against an empty remote (no API calls)')
    .addOption(allowOutsidePaths())
    .addOption(onlyTargetGroup())
    .addOption(exceptTargetGroup())
    .option('--out <file>', 'also write the plan file (plan.sfplan) that `apply <file>` runs if the exchange has not moved since')
    .action(run(() => import('./commands/plan')));

  program
    .command('apply')
    .description('start or update the study workflows and follow them to their goal state')
    .argument('[paths...]', 'study files or directories, or one plan file (*.sfplan)')
    .option('--no-wait', 'return once the workflow has accepted the revision')
    .option('--require-live', 'exit 1 unless every target group ends live')
    .option('--timeout <seconds>', 'stop following after this long (the study goes on)', '1800')
    .option('--git-revision <sha>', 'the commit the files came from (default: GITHUB_SHA or git rev-parse HEAD)')
    .addOption(new Option('--format <format>', 'output format (github: annotations and a step summary)').choices(['human', 'json', 'github']).default('human'))
    .addOption(json())
    .addOption(allowOutsidePaths())
    .addOption(onlyTargetGroup())
    .addOption(exceptTargetGroup())
    .option('--plan <file>', 'apply this plan file (plan --out): exactly its program, stopping (exit 5) if the exchange moved since')
    .option('--approve-closeout', 'approve the close-out\'s reversals as these files hold them (they cannot be undone: pass it only for the reviewed merge)')
    .action(run(() => import('./commands/apply')));

  program
    .command('status')
    .description('show where a study stands')
    .argument('<study>', 'a study file or a study id')
    .option('--account <id>', 'account id (when a study id is given)')
    .addOption(json())
    .action(run(() => import('./commands/status')));

  program
    .command('report')
    .description('report the figures of a study: completes, respondents by status, cost, rates, changes since launch')
    .argument('<study>', 'a study file or a study id')
    .option('--account <id>', 'account id (when a study id is given)')
    .option('--html <file>', 'also write a self-contained HTML page with charts to this file')
    .addOption(json())
    .action(run(() => import('./commands/report')));

  program
    .command('approve')
    .description('approve the launch of target groups waiting for approval')
    .argument('<study>', 'a study file or a study id')
    .option('--target-group <key>', 'approve only this target group')
    .option('--closeout', 'approve the close-out waiting for approval (its reversals cannot be undone) and follow it until it settles')
    .option('--timeout <seconds>', 'with --closeout, --promote or --abort: stop following after this long (the work goes on)', '600')
    .option('--resume', 'resume the target groups a guard paused (recorded with who resumed) instead of approving launches')
    .option('--promote', 'promote the soft launches that wait for a decision (inconclusive, or failed and paused) to the full goal')
    .option('--abort', 'abort the soft launches that wait for a decision: they stay paused')
    .option('--by <who>', 'with --resume, --promote or --abort: who decides (default: $USER, else the OS user)')
    .option('--account <id>', 'account id (when a study id is given)')
    .addOption(json())
    .action(run(() => import('./commands/approve')));

  program
    .command('cancel')
    .description('stop managing a study (its workflows are cancelled; nothing is deleted in the API)')
    .argument('<study>', 'a study file or a study id')
    .option('--account <id>', 'account id (when a study id is given)')
    .addOption(json())
    .action(run(() => import('./commands/cancel')));

  program
    .command('fielding')
    .description('pause, resume or complete a live target group (applied with its fielding run ETag)')
    .argument('<action>', 'pause, resume or complete')
    .argument('<study>', 'a study file or a study id')
    .requiredOption('--target-group <key>', 'the target group')
    .option('--account <id>', 'account id (when a study id is given)')
    .addOption(json())
    .action(run(() => import('./commands/fielding')));

  program
    .command('dev')
    .description('start Temporal (SQLite under .studyflow/), the sandbox API and a worker; print the URLs')
    .option('--temporal-port <n>', 'Temporal gRPC port', '7233')
    .option('--ui-port <n>', 'Temporal UI port', '8233')
    .option('--sandbox-port <n>', 'sandbox API port', '4010')
    .option('--webhook-port <n>', 'webhook receiver port (default: 4020, or a free one when 4020 is taken)')
    .option('--metrics-port <n>', "serve the worker's /metrics and /healthz on this port (0 = a free one; default STUDYFLOW_METRICS_PORT, else off)")
    .option('--state-dir <dir>', 'where Temporal and the sandbox keep state; dev-stack.json there tells a CLI in another shell where the stack is (STUDYFLOW_DEV_STATE_DIR)', '.studyflow')
    .addOption(apiProfileOption('the connection profile of the stack: the sandbox speaks its dialect, the worker and receiver use it, and a CLI in this directory must too'))
    .addOption(new Option('--blob <store>', 'where ID lists and sealed webhook secrets live: a local directory, or a local S3 server (versitygw, built on first use)').choices(['local', 's3']).default('local'))
    .action(run(() => import('./commands/dev')));

  program
    .command('demo')
    .description('bring up the embedded stack, apply examples/quickstart, print the result, stop')
    .option('--keep-running', 'leave the stack running after the apply (Ctrl-C stops it)')
    .addOption(apiProfileOption('the connection profile of the demo: the sandbox speaks its dialect, and the worker and the apply use it'))
    .addOption(json())
    .action(run(() => import('./commands/demo')));

  program
    .command('sandbox')
    .description('run the Demand Exchange API sandbox alone')
    .option('--port <n>', 'port', '4010')
    .option('--host <host>', 'bind address', '127.0.0.1')
    .option('--state-file <file>', 'persist state to this file and reload it on start')
    .addOption(apiProfileOption('the dialect the sandbox speaks: sandbox (the spec, its deviations included) or cint (the published reference exactly)'))
    .action(run(() => import('./commands/sandbox')));

  program
    .command('worker')
    .description('run a studyflow worker (workflows and API activities) against TEMPORAL_ADDRESS')
    .option('--webhook-port <n>', 'also receive Demand API webhooks on this port (0 = a free one)')
    .option('--webhook-host <host>', 'bind address of the webhook receiver', '127.0.0.1')
    .option('--metrics-port <n>', 'serve /metrics and /healthz on this port (0 = a free one; default STUDYFLOW_METRICS_PORT, else off)')
    .option('--metrics-host <host>', 'bind address of /metrics and /healthz', '127.0.0.1')
    .option('--write-bundle <file>', 'write the workflow bundle to this file (for STUDYFLOW_WORKFLOW_BUNDLE) and exit')
    .option('--check', 'check that Temporal, the blob store, the payload key and the webhook secrets are reachable, then exit')
    .option('--build-id <id>', 'the build id of this worker deployment version (default STUDYFLOW_BUILD_ID, else <version>-<bundle hash>)')
    .option('--deployment <name>', 'the worker deployment name (default STUDYFLOW_DEPLOYMENT, else the task queue)')
    .addOption(json())
    .action(run(() => import('./commands/worker')));

  program
    .command('upgrade')
    .description('before and after a deploy: replay running studies against a new workflow bundle, show which build each runs on, make a build current')
    .argument('<action>', 'check, status or set-current')
    .option('--from-cluster', 'check: replay the histories of the running study and target-group workflows (the default)')
    .option('--histories <dir>', 'check: replay the JSON histories in this directory instead')
    .option('--bundle <file>', 'check: the new workflow bundle (`studyflow worker --write-bundle`; default: this studyflow\'s own)')
    .option('--build-id <id>', 'set-current: the build to make current (or ramp)')
    .option('--ramp <percent>', 'set-current: ramp the build to this share of new and moving runs instead of making it current')
    .option('--deployment <name>', 'the worker deployment (default STUDYFLOW_DEPLOYMENT, else the task queue)')
    .addOption(json())
    .action(run(() => import('./commands/upgrade')));

  program
    .command('receiver')
    .description('receive Demand API webhooks and pass them to the study workflows (no workflow work); run several behind a load balancer')
    .option('--port <n>', 'port (0 = a free one)', '4020')
    .option('--host <host>', 'bind address', '127.0.0.1')
    .option('--metrics-port <n>', 'serve /metrics and /healthz on this port (0 = a free one; default STUDYFLOW_METRICS_PORT, else off)')
    .option('--metrics-host <host>', 'bind address of /metrics and /healthz', '127.0.0.1')
    .option('--check', 'check that Temporal, the blob store and the webhook secrets are reachable, then exit')
    .addOption(json())
    .action(run(() => import('./commands/receiver')));

  program
    .command('doctor')
    .description('check the configured Demand API connection: settings, a token, and read-only calls (accounts, business unit, projects)')
    .option('--account <id>', 'the account to check (default: the first the credentials reach)')
    .option('--business-unit <id>', 'a business unit the account must have')
    .addOption(json())
    .action(run(() => import('./commands/doctor')));

  program
    .command('migrate')
    .description('rewrite pre-2025-12-18 field names, and webhook event names to the profile\'s, in a study file, keeping comments and layout')
    .argument('<file>', 'study file')
    .option('--check', 'only report what would change (exit 1 when something would)')
    .addOption(profile())
    .addOption(json())
    .action(run(() => import('./commands/migrate')));

  return program;
}

/** The commands that run until they are stopped. */
const LONG_RUNNING: ReadonlySet<string> = new Set(['dev', 'demo', 'worker', 'receiver', 'sandbox']);

/** Runs the CLI; returns the exit code (only bin/studyflow.js calls process.exit). */
export async function main(argv: string[], streams?: Streams, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  startTimeline(env);
  const out = new Output(streams, env);
  let resolveInterrupt: () => void = () => undefined;
  const interrupted = new Promise<void>((resolve) => (resolveInterrupt = resolve));
  const onSigint = () => resolveInterrupt();
  process.on('SIGINT', onSigint);
  // A long-running command stops on SIGTERM (`kill`, `docker stop`, systemd) as on Ctrl-C: the Temporal SDK's runtime
  // takes SIGTERM for its worker, so without this `dev` would stop its worker and keep its servers running.
  if (LONG_RUNNING.has(argv[0] ?? '')) process.on('SIGTERM', onSigint);
  let code = 0;
  const program = buildProgram({ out, env, cwd: process.cwd(), interrupted }, (c) => (code = c));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
      return 2;
    }
    if (error instanceof CliError || error instanceof StudyClientError) {
      out.progress(`${out.red('error')}: ${error.message}`);
      return error.exitCode;
    }
    out.progress(`${out.red('error')}: ${describeError(error)}`);
    if (env.STUDYFLOW_DEBUG) out.progress(String((error as Error)?.stack ?? error));
    return 1;
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
    const timeline = timelineLine();
    if (timeline) out.progress(timeline);
  }
}
