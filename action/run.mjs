// Step 2 of the studyflow action: runs `studyflow <command> <paths> --format github [args]`. Annotations go to
// stdout, where the runner reads them; the CLI appends its markdown to GITHUB_STEP_SUMMARY itself. Writes
// `exit-code` (and for plan `changes`) to GITHUB_OUTPUT and fails the step on a failure (plan's exit 2, changes
// pending, is not one). With the input plan-file, plan also writes that plan file (`--out`) and apply applies it
// (`apply --plan FILE`, no paths): exit 5, the exchange moved since the plan, fails the step like any failure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const COMMANDS = { validate: [], plan: ['--detailed-exitcode'], apply: [] };

function fail(message) {
  process.stdout.write(`::error title=studyflow action::${message.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}\n`);
  process.exit(1);
}

const outputFile = process.env.GITHUB_OUTPUT;
const bin = process.env.STUDYFLOW_BIN;
const command = (process.env.INPUT_COMMAND ?? '').trim();
const paths = (process.env.INPUT_PATHS ?? '').split(/\s+/).filter(Boolean);
const extra = (process.env.INPUT_ARGS ?? '').split(/\s+/).filter(Boolean);
const planFile = (process.env.INPUT_PLAN_FILE ?? '').trim();
if (!outputFile) fail('GITHUB_OUTPUT is not set: run this script as a step of the action');
if (!bin) fail('STUDYFLOW_BIN is not set: the install step did not run');
if (!Object.hasOwn(COMMANDS, command)) fail(`input command must be validate, plan or apply, got "${command}"`);
if (planFile && command === 'validate') fail('input plan-file is for plan (which writes it) and apply (which applies it), not validate');
const applyingPlan = command === 'apply' && planFile !== '';
if (!applyingPlan && paths.length === 0) fail('input paths names no study file or directory');

const args = applyingPlan
  ? ['apply', '--plan', planFile, '--format', 'github', ...extra]
  : [command, ...paths, '--format', 'github', ...COMMANDS[command], ...(planFile ? ['--out', planFile] : []), ...extra];
process.stderr.write(`$ studyflow ${args.join(' ')}\n`);
const result = spawnSync(bin, args, { stdio: 'inherit', env: { ...process.env, NO_COLOR: process.env.NO_COLOR ?? '1' } });
const code = result.status ?? 1;
fs.appendFileSync(outputFile, `exit-code=${code}\n`);
if (planFile) fs.appendFileSync(outputFile, `plan-file=${planFile}\n`);
if (command === 'plan' && (code === 0 || code === 2)) {
  fs.appendFileSync(outputFile, `changes=${code === 2}\n`);
  process.exit(0);
}
process.exit(code);
