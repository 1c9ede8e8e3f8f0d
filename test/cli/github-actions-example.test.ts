// examples/ci/github-actions.yml is a workflow users copy: it must be a valid GitHub Actions
// workflow shape, and every `studyflow …` it runs must be a real command with real options and
// allowed values, checked against the commander program itself.
import fs from 'node:fs';
import path from 'node:path';
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildProgram } from '../../cli/main';
import { Output } from '../../cli/output';
import { REPO_ROOT } from './run-cli';

const EXAMPLE = path.join(REPO_ROOT, 'examples/ci/github-actions.yml');
const ACTION = parse(fs.readFileSync(path.join(REPO_ROOT, 'action.yml'), 'utf8')) as { inputs: Record<string, { required?: boolean; default?: string }> };
/** A step that uses the studyflow action (action.yml), wherever the buyer keeps it. */
const STUDYFLOW_ACTION = /^[\w.-]+\/studyflow@v\d+$/;

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
  if?: string;
}

interface Job {
  name?: string;
  if?: string;
  'runs-on': string;
  permissions?: Record<string, string>;
  concurrency?: { group: string; 'cancel-in-progress'?: boolean };
  environment?: string;
  steps: Step[];
}

interface Workflow {
  name: string;
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  env: Record<string, string>;
  jobs: Record<string, Job>;
}

/** One `studyflow <command> …` invocation found in a `run:` script. */
interface StudyflowInvocation {
  job: string;
  command: string;
  args: string[];
}

const SHELL_OPERATORS = new Set(['>', '>>', '<', '|', '||', '&&', ';', '2>', '2>&1', '&']);

/**
 * Every `studyflow …` command line in a shell script (`npx studyflow`, or `"$STUDYFLOW"`, the command the action
 * installed): the words after it up to a shell operator.
 */
function studyflowInvocations(job: string, script: string): StudyflowInvocation[] {
  const found: StudyflowInvocation[] = [];
  for (const line of script.split('\n')) {
    const words = line.trim().split(/\s+/);
    for (let i = 0; i < words.length; i += 1) {
      if (words[i] !== 'studyflow' && words[i] !== '"$STUDYFLOW"') continue;
      const rest: string[] = [];
      for (const word of words.slice(i + 1)) {
        if (SHELL_OPERATORS.has(word) || word.startsWith('>')) break;
        rest.push(word.replace(/^"(.*)"$/, '$1'));
      }
      if (rest.length) found.push({ job, command: rest[0], args: rest.slice(1) });
    }
  }
  return found;
}

function program(): Command {
  const out = new Output({ stdout: process.stdout, stderr: process.stderr }, {});
  return buildProgram({ out, env: {}, cwd: REPO_ROOT, interrupted: new Promise(() => undefined) }, () => undefined);
}

/** Problems of one invocation against the real program: unknown command, unknown option, value missing or not allowed, wrong argument count. */
function invocationProblems(root: Command, invocation: StudyflowInvocation): string[] {
  const command = root.commands.find((c) => c.name() === invocation.command);
  if (!command) return [`unknown command "${invocation.command}"`];
  const problems: string[] = [];
  const positional: string[] = [];
  const args = invocation.args;
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i];
    if (!word.startsWith('-')) {
      positional.push(word);
      continue;
    }
    const [flag, inline] = word.split('=', 2);
    const option: Option | undefined = command.options.find((o) => o.long === flag || o.short === flag);
    if (!option) {
      problems.push(`${invocation.command}: unknown option ${flag}`);
      continue;
    }
    if (option.required || option.optional) {
      const value = inline ?? args[i + 1];
      if (inline === undefined) i += 1;
      if (value === undefined || (option.required && value.startsWith('-'))) problems.push(`${invocation.command}: ${flag} needs a value`);
      else if (option.argChoices && !option.argChoices.includes(value)) problems.push(`${invocation.command}: ${flag} ${value} is not one of ${option.argChoices.join(', ')}`);
    } else if (inline !== undefined) {
      problems.push(`${invocation.command}: ${flag} takes no value`);
    }
  }
  const declared = command.registeredArguments;
  const required = declared.filter((a) => a.required).length;
  const variadic = declared.some((a) => a.variadic);
  if (positional.length < required) problems.push(`${invocation.command}: needs ${required} argument(s), got ${positional.length}`);
  if (!variadic && positional.length > declared.length) problems.push(`${invocation.command}: takes ${declared.length} argument(s), got ${positional.length}`);
  return problems;
}

/** The command line a use of the studyflow action runs (as action/run.mjs builds it from the inputs). */
function actionInvocation(job: string, step: Step): StudyflowInvocation {
  const inputs = (step.with ?? {}) as Record<string, string>;
  const command = inputs.command ?? ACTION.inputs.command.default ?? '';
  const words = (text: string | undefined) => (text ?? '').split(/\s+/).filter(Boolean);
  // As action/run.mjs builds it: with plan-file, plan writes it (--out) and apply applies it instead of the paths.
  const planFile = inputs['plan-file'];
  if (command === 'apply' && planFile) return { job, command, args: ['--plan', planFile, '--format', 'github', ...words(inputs.args)] };
  return {
    job,
    command,
    args: [...words(inputs.paths ?? ACTION.inputs.paths.default), '--format', 'github', ...(command === 'plan' ? ['--detailed-exitcode'] : []), ...(planFile ? ['--out', planFile] : []), ...words(inputs.args)],
  };
}

const workflow = parse(fs.readFileSync(EXAMPLE, 'utf8')) as Workflow;
const invocations = Object.entries(workflow.jobs).flatMap(([name, job]) =>
  job.steps.flatMap((s) => (s.run ? studyflowInvocations(name, s.run) : s.uses && STUDYFLOW_ACTION.test(s.uses) ? [actionInvocation(name, s)] : [])),
);

describe('examples/ci/github-actions.yml', () => {
  it('has the shape of a GitHub Actions workflow', () => {
    expect(typeof workflow.name).toBe('string');
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push', 'workflow_dispatch']);
    expect((workflow.on.push as { branches: string[] }).branches).toEqual(['main']);
    expect(Object.keys(workflow.jobs).length).toBeGreaterThan(0);
    for (const [name, job] of Object.entries(workflow.jobs)) {
      expect(name).toMatch(/^[A-Za-z_][A-Za-z0-9_-]*$/);
      expect(typeof job['runs-on'], name).toBe('string');
      expect(Array.isArray(job.steps) && job.steps.length > 0, name).toBe(true);
      for (const step of job.steps) {
        expect(Boolean(step.uses) !== Boolean(step.run), `${name}: a step has exactly one of uses and run: ${JSON.stringify(step)}`).toBe(true);
        if (step.uses) expect(step.uses).toMatch(/^[\w.-]+\/[\w.-]+@v\d+$/);
      }
      const ids = job.steps.map((s) => s.id).filter(Boolean);
      expect(new Set(ids).size, `${name}: step ids are unique`).toBe(ids.length);
    }
  });

  it('reads only the repository by default, and writes pull-request comments only in the plan job', () => {
    expect(workflow.permissions).toEqual({ contents: 'read' });
    const writes = Object.entries(workflow.jobs).flatMap(([name, job]) =>
      Object.entries(job.permissions ?? {})
        .filter(([, level]) => level === 'write')
        .map(([scope]) => `${name}:${scope}`),
    );
    expect(writes).toEqual(['plan:pull-requests']);
  });

  it('takes every credential and connection setting from secrets, never a literal', () => {
    for (const name of ['STUDYFLOW_API_BASE_URL', 'STUDYFLOW_AUTH_URL', 'STUDYFLOW_AUDIENCE', 'STUDYFLOW_CLIENT_ID', 'STUDYFLOW_CLIENT_SECRET', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE']) {
      expect(workflow.env[name], name).toBe(`\${{ secrets.${name} }}`);
    }
    for (const [name, value] of Object.entries(workflow.env)) {
      if (/SECRET|KEY|TOKEN|PASSWORD/.test(name)) expect(value, name).toMatch(/^\$\{\{ secrets\.[A-Z_]+ \}\}$/);
    }
  });

  it('uses the studyflow action with inputs that action.yml declares, and every required one given', () => {
    const uses = Object.values(workflow.jobs).flatMap((job) => job.steps.filter((s) => s.uses && STUDYFLOW_ACTION.test(s.uses)));
    expect(uses.length).toBeGreaterThanOrEqual(4);
    for (const step of uses) {
      const given = Object.keys(step.with ?? {});
      expect(given.filter((name) => !(name in ACTION.inputs)), step.name).toEqual([]);
      for (const [name, input] of Object.entries(ACTION.inputs)) if (input.required && input.default === undefined) expect(given, `${step.name}: ${name}`).toContain(name);
      expect(['validate', 'plan', 'apply']).toContain((step.with as Record<string, string>).command);
    }
  });

  it('validates and plans on pull requests: annotations, the step summary and a markdown comment', () => {
    const plan = invocations.filter((i) => i.job === 'plan');
    expect(plan).toContainEqual({ job: 'plan', command: 'validate', args: ['studies/', '--format', 'github'] });
    expect(plan).toContainEqual({ job: 'plan', command: 'plan', args: ['studies/', '--format', 'github', '--detailed-exitcode', '--out', 'plan.sfplan'] });
    // The plan file is kept as the run's artifact, which the apply job of the merge downloads and applies.
    const kept = workflow.jobs.plan.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(kept?.with).toMatchObject({ name: 'studyflow-plan', path: 'plan.sfplan' });
    expect(plan.some((i) => i.command === 'plan' && i.args.join(' ').includes('--format markdown'))).toBe(true);
    expect(plan.some((i) => i.command === 'apply')).toBe(false);
    expect(workflow.jobs.plan.if).toContain("github.event_name == 'pull_request'");
    const comment = workflow.jobs.plan.steps.find((s) => s.uses?.startsWith('actions/github-script@'));
    expect(comment, 'a step posts the plan as a comment').toBeDefined();
    expect(String(comment!.with?.script)).toContain('plan.md');
  });

  it('has a comment script that compiles as the async function github-script runs', () => {
    const script = String(workflow.jobs.plan.steps.find((s) => s.uses?.startsWith('actions/github-script@'))!.with?.script);
    const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => unknown;
    expect(() => new AsyncFunction('require', 'github', 'context', 'core', 'process', script)).not.toThrow();
  });

  it('applies on pushes to main, one run at a time and never cancelled halfway', () => {
    const apply = workflow.jobs.apply;
    expect(apply.if).toContain("github.event_name == 'push'");
    expect(apply.if).toContain("refs/heads/main");
    expect(apply.concurrency?.group).toBeTruthy();
    expect(apply.concurrency?.['cancel-in-progress']).toBe(false);
    expect(invocations.filter((i) => i.job === 'apply' && i.command === 'apply')).toEqual([{ job: 'apply', command: 'apply', args: ['--plan', 'plan.sfplan', '--format', 'github', '--timeout', '1800'] }]);
    const download = apply.steps.find((s) => s.uses?.startsWith('actions/download-artifact@'));
    expect(download?.with).toMatchObject({ name: 'studyflow-plan' });
    expect(invocations.filter((i) => i.job !== 'apply' && i.command === 'apply')).toEqual([]);
  });

  it('runs only commands and options that the studyflow program has, with allowed values', () => {
    expect(invocations.length).toBeGreaterThanOrEqual(5);
    const root = program();
    const problems = invocations.flatMap((i) => invocationProblems(root, i));
    expect(problems).toEqual([]);
  });

  it('has a checker that catches an unknown command, an unknown option and a value out of the choices', () => {
    const root = program();
    expect(invocationProblems(root, { job: 'x', command: 'deploy', args: [] })).toEqual(['unknown command "deploy"']);
    expect(invocationProblems(root, { job: 'x', command: 'plan', args: ['studies/', '--detailed-exit-code'] })).toEqual(['plan: unknown option --detailed-exit-code']);
    expect(invocationProblems(root, { job: 'x', command: 'validate', args: ['studies/', '--format', 'markdown'] })).toEqual([
      'validate: --format markdown is not one of human, github, json',
    ]);
    expect(invocationProblems(root, { job: 'x', command: 'plan', args: ['--out'] })).toEqual(['plan: --out needs a value', 'plan: needs 1 argument(s), got 0']);
    expect(invocationProblems(root, { job: 'x', command: 'status', args: ['a', 'b'] })).toEqual(['status: takes 1 argument(s), got 2']);
    expect(studyflowInvocations('x', 'code=0\nnpx studyflow plan studies/ --format markdown > plan.md || code=$?')).toEqual([
      { job: 'x', command: 'plan', args: ['studies/', '--format', 'markdown'] },
    ]);
    expect(studyflowInvocations('x', '"$STUDYFLOW" status "$STUDY_FILE"')).toEqual([{ job: 'x', command: 'status', args: ['$STUDY_FILE'] }]);
  });

  it('approves by hand through workflow_dispatch, with the inputs passed as environment variables', () => {
    const approve = workflow.jobs.approve;
    expect(approve.if).toContain("github.event_name == 'workflow_dispatch'");
    const approvals = invocations.filter((i) => i.command === 'approve');
    expect(approvals.map((i) => i.job)).toEqual(['approve', 'approve']);
    expect(approvals.map((i) => i.args)).toEqual([['$STUDY_FILE', '--target-group', '$TARGET_GROUP'], ['$STUDY_FILE']]);
    for (const step of approve.steps) expect(step.run ?? '', 'no ${{ inputs.* }} inside a script').not.toContain('${{');
  });

  it('names in docs/ci.md every secret it reads', () => {
    const text = fs.readFileSync(EXAMPLE, 'utf8');
    const docs = fs.readFileSync(path.join(REPO_ROOT, 'docs/ci.md'), 'utf8');
    const secrets = [...new Set([...text.matchAll(/secrets\.([A-Z_]+)/g)].map((m) => m[1]))];
    expect(secrets.length).toBeGreaterThan(5);
    for (const name of secrets) expect(docs, name).toContain(`\`${name}\``);
  });
});
