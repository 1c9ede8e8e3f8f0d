// Golden-file tests of the commands that need no server: validate, schema, plan --offline, migrate,
// --help of every command, and usage errors. Each run gets its own environment (never the test
// process's), so STUDYFLOW_* or NO_COLOR set by whoever runs the tests cannot change the output.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/main';
import { Output } from '../../cli/output';
import { cliTranscript, expectGolden, literal, normalize } from './golden';
import { makeTempDir, REPO_ROOT, runCli } from './run-cli';

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/;
const INPUT = 'test/cli/golden/input';
const EXAMPLES = ['quickstart', 'every-exclusion', 'multi-country-tracker', 'recontact-wave', 'staged-launch', 'lifecycle-tracker', 'closeout', 'soft-launch'];

let temp: { dir: string; remove: () => void };
let env: Record<string, string>;

beforeAll(() => {
  // Paths in the goldens are relative to the repository root, as a user in a checkout types them.
  expect(process.cwd(), 'run the CLI tests from the repository root').toBe(REPO_ROOT);
  temp = makeTempDir('cli-unit');
  env = { STUDYFLOW_BLOB_DIR: path.join(temp.dir, 'blobs') };
});
afterAll(() => temp?.remove());

/** Every command of the program, as `buildProgram` wires them. */
function commandNames(): string[] {
  const out = new Output({ stdout: process.stdout, stderr: process.stderr }, {});
  const program = buildProgram({ out, env: {}, cwd: REPO_ROOT, interrupted: new Promise(() => undefined) }, () => undefined);
  return program.commands.map((c) => c.name());
}

describe('studyflow validate', () => {
  it('passes every example, with the summary on stderr and nothing on stdout', async () => {
    const result = await runCli(['validate', 'examples/'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expectGolden('validate-examples', cliTranscript(result));
  });

  it('reports every problem of a file in the human format, exit 1', async () => {
    const result = await runCli(['validate', `${INPUT}/several-errors.yaml`], { env });
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const line of lines) expect(line).toMatch(/^test\/cli\/golden\/input\/several-errors\.yaml:\d+:\d+: (error|warning) SF\d{4} /);
    expectGolden('validate-errors-human', cliTranscript(result));
  });

  it('prints GitHub workflow commands with --format github', async () => {
    const result = await runCli(['validate', `${INPUT}/several-errors.yaml`, '--format', 'github'], { env });
    expect(result.code).toBe(1);
    for (const line of result.stdout.trimEnd().split('\n')) {
      expect(line).toMatch(/^::(error|warning) file=test\/cli\/golden\/input\/several-errors\.yaml,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=[^:]+::\S/);
    }
    expectGolden('validate-errors-github', cliTranscript(result));
  });

  it('prints one JSON document with --format json and with --json', async () => {
    const viaFormat = await runCli(['validate', `${INPUT}/several-errors.yaml`, '--format', 'json'], { env });
    const viaFlag = await runCli(['validate', `${INPUT}/several-errors.yaml`, '--json'], { env });
    expect(viaFormat).toEqual(viaFlag);
    expect(viaFormat.code).toBe(1);
    expect(viaFormat.stderr).toBe('');
    const report = JSON.parse(viaFormat.stdout) as { valid: boolean; errors: number; warnings: number; diagnostics: { severity: string }[] };
    expect(report.valid).toBe(false);
    expect(report.errors).toBe(report.diagnostics.filter((d) => d.severity === 'error').length);
    expect(report.warnings).toBe(report.diagnostics.filter((d) => d.severity === 'warning').length);
    expect(report.warnings).toBeGreaterThan(0);
    expectGolden('validate-errors-json', cliTranscript(viaFormat));
  });

  it('lists the valid examples in its JSON report', async () => {
    const result = await runCli(['validate', 'examples/', '--json'], { env });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { valid: boolean; studies: { file: string; study: string }[] };
    expect(report.valid).toBe(true);
    expect(report.studies.map((s) => s.study).sort()).toHaveLength(EXAMPLES.length);
    expectGolden('validate-examples-json', cliTranscript({ ...result, stdout: normalize(result.stdout, [literal(REPO_ROOT, '<repo>')]) }));
  });
});

describe('studyflow schema', () => {
  it('prints the draft-07 JSON Schema of the study format, the same as the committed schema file', async () => {
    const result = await runCli(['schema'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const schema = JSON.parse(result.stdout) as { $schema: string };
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(result.stdout).toBe(fs.readFileSync(path.join(REPO_ROOT, 'schema/study.schema.json'), 'utf8'));
    expectGolden('schema', result.stdout);
  });
});

describe('studyflow plan --offline', () => {
  it.each(EXAMPLES)('plans examples/%s for humans', async (example) => {
    const result = await runCli(['plan', '--offline', `examples/${example}/study.yaml`], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(ANSI);
    expectGolden(`plan-offline-${example}-human`, cliTranscript(result));
  });

  it('prints the plan of every example as one JSON document', async () => {
    const result = await runCli(['plan', '--offline', 'examples/', '--json'], { env });
    expect(result.code).toBe(0);
    const plan = JSON.parse(result.stdout) as { offline: boolean; studies: { file: string; hasChanges: boolean }[] };
    expect(plan.offline).toBe(true);
    expect(plan.studies.map((s) => s.file).sort()).toEqual(EXAMPLES.map((e) => `examples/${e}/study.yaml`).sort());
    expect(plan.studies.every((s) => s.hasChanges)).toBe(true);
    expect((await runCli(['plan', '--offline', 'examples/', '--format', 'json'], { env })).stdout).toBe(result.stdout);
    expectGolden('plan-offline-examples-json', cliTranscript(result));
  });

  it('prints a markdown pull-request comment with --format markdown', async () => {
    const result = await runCli(['plan', '--offline', 'examples/', '--format', 'markdown'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith('## studyflow plan\n')).toBe(true);
    expectGolden('plan-offline-examples-markdown', cliTranscript(result));
  });

  it('prints annotations with --format github and appends the markdown plan to $GITHUB_STEP_SUMMARY', async () => {
    const summary = path.join(temp.dir, 'step-summary.md');
    fs.writeFileSync(summary, '# earlier step\n');
    const result = await runCli(['plan', '--offline', 'examples/', '--format', 'github'], { env: { ...env, GITHUB_STEP_SUMMARY: summary } });
    expect(result.code).toBe(0);
    for (const line of result.stdout.trimEnd().split('\n')) expect(line).toMatch(/^::(notice|warning) file=examples\/[\w-]+\/study\.yaml,title=/);
    expectGolden('plan-offline-examples-github', cliTranscript(result));

    const markdown = await runCli(['plan', '--offline', 'examples/', '--format', 'markdown'], { env });
    // The summary gets the markdown plan and a blank line that keeps the next step's section apart.
    expect(fs.readFileSync(summary, 'utf8')).toBe(`# earlier step\n${markdown.stdout}\n`);
  });

  it('writes no step summary without $GITHUB_STEP_SUMMARY', async () => {
    const before = fs.readdirSync(temp.dir).sort();
    const result = await runCli(['plan', '--offline', 'examples/quickstart/study.yaml', '--format', 'github'], { env });
    expect(result.code).toBe(0);
    expect(fs.readdirSync(temp.dir).sort()).toEqual(before);
  });

  it('exits 2 with --detailed-exitcode when changes are pending', async () => {
    const result = await runCli(['plan', '--offline', 'examples/quickstart/study.yaml', '--detailed-exitcode'], { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe((await runCli(['plan', '--offline', 'examples/quickstart/study.yaml'], { env })).stdout);
  });

  it('refuses an invalid study with its diagnostics on stderr, exit 1, nothing on stdout', async () => {
    const result = await runCli(['plan', '--offline', `${INPUT}/several-errors.yaml`, '--detailed-exitcode'], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expectGolden('plan-offline-invalid', cliTranscript(result));
  });

  it('says so when a directory holds no study files, exit 1', async () => {
    const empty = path.join(temp.dir, 'no-studies');
    fs.mkdirSync(empty);
    const result = await runCli(['plan', '--offline', empty], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expectGolden('plan-offline-no-studies', cliTranscript({ ...result, stderr: normalize(result.stderr, [literal(temp.dir, '<tmp>')]) }));
  });
});

describe('studyflow migrate', () => {
  const legacy = `${INPUT}/legacy-names.yaml`;

  it('--check lists the renames and exits 1 without touching the file', async () => {
    const before = fs.readFileSync(legacy, 'utf8');
    const result = await runCli(['migrate', legacy, '--check'], { env });
    expect(result.code).toBe(1);
    expect(fs.readFileSync(legacy, 'utf8')).toBe(before);
    expectGolden('migrate-check-human', cliTranscript(result));
    const json = await runCli(['migrate', legacy, '--check', '--json'], { env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ file: legacy, written: false });
    expectGolden('migrate-check-json', cliTranscript(json));
  });

  it('rewrites a copy in place, keeping comments, and the result validates and needs nothing more', async () => {
    const copy = path.join(temp.dir, 'legacy-copy.yaml');
    fs.copyFileSync(legacy, copy);
    const result = await runCli(['migrate', copy], { env });
    expect(result.code).toBe(0);
    const tmp = [literal(temp.dir, '<tmp>')];
    expectGolden('migrate-rewrite-human', cliTranscript({ ...result, stdout: normalize(result.stdout, tmp), stderr: normalize(result.stderr, tmp) }));
    const rewritten = fs.readFileSync(copy, 'utf8');
    expectGolden('migrate-rewritten-file', rewritten);
    // The server assigns the human-readable id: migrate removes the line instead of renaming it.
    expect(rewritten).not.toMatch(/human.readable.id/);
    expect(fs.readdirSync(temp.dir).filter((f) => f.includes('studyflow-migrate'))).toEqual([]);

    expect((await runCli(['validate', copy], { env })).code).toBe(0);
    const again = await runCli(['migrate', copy, '--check'], { env });
    expect(again.code).toBe(0);
    expect(normalize(again.stdout, tmp)).toBe('<tmp>/legacy-copy.yaml: nothing to migrate\n');
  });

  it('reports a written rewrite in JSON', async () => {
    const copy = path.join(temp.dir, 'legacy-json.yaml');
    fs.copyFileSync(legacy, copy);
    const result = await runCli(['migrate', copy, '--json'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const report = JSON.parse(result.stdout) as { written: boolean; changes: unknown[] };
    expect(report.written).toBe(true);
    expect(report.changes).toHaveLength(8);
  });

  it('names a missing file in one line, exit 1', async () => {
    const result = await runCli(['migrate', 'test/cli/golden/input/no-such-file.yaml'], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('error: cannot read test/cli/golden/input/no-such-file.yaml: ENOENT\n');
  });
});

describe('--help', () => {
  it('prints the overview with every command, on stdout, exit 0', async () => {
    const result = await runCli(['--help'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    for (const name of commandNames()) expect(result.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    expectGolden('help/studyflow', result.stdout);
  });

  it.each(commandNames())('prints the help of %s', async (name) => {
    const result = await runCli([name, '--help'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(new RegExp(`^Usage: studyflow ${name}\\b`));
    expectGolden(`help/${name}`, result.stdout);
  });

  it('prints the version', async () => {
    const result = await runCli(['--version'], { env });
    expect(result.code).toBe(0);
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(result.stdout).toBe(`${pkg.version}\n`);
  });
});

describe('usage errors: exit 2, the message on stderr, nothing on stdout', () => {
  const cases: [string, string[]][] = [
    ['unknown-command', ['bogus']],
    ['unknown-option', ['validate', 'examples/', '--bogus']],
    ['missing-argument', ['validate']],
    ['invalid-format', ['plan', '--offline', 'examples/', '--format', 'xml']],
    ['invalid-timeout', ['apply', 'examples/quickstart/study.yaml', '--timeout', 'soon']],
    ['invalid-port', ['sandbox', '--port', '99999']],
    ['status-without-account', ['status', 'quickstart-us-gen-pop']],
    ['approve-without-account', ['approve', 'quickstart-us-gen-pop', '--target-group', 'us_gen_pop']],
    ['approve-by-without-resume', ['approve', 'examples/quickstart/study.yaml', '--by', 'ana']],
    ['approve-resume-by-nobody', ['approve', 'examples/quickstart/study.yaml', '--resume', '--by', ' ']],
    ['cancel-without-account', ['cancel', 'quickstart-us-gen-pop']],
    ['fielding-without-account', ['fielding', 'pause', 'quickstart-us-gen-pop', '--target-group', 'us_gen_pop']],
    ['fielding-unknown-action', ['fielding', 'stop', 'examples/quickstart/study.yaml', '--target-group', 'us_gen_pop']],
    ['fielding-without-target-group', ['fielding', 'pause', 'examples/quickstart/study.yaml']],
  ];

  it.each(cases)('%s', async (name, args) => {
    const result = await runCli(args, { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: /);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expectGolden(`usage/${name}`, cliTranscript(result));
  });

  it('takes the account from STUDYFLOW_ACCOUNT_ID instead (and then needs Temporal: exit 1, not 2)', async () => {
    const result = await runCli(['status', 'quickstart-us-gen-pop'], {
      env: { ...env, STUDYFLOW_ACCOUNT_ID: '1001', TEMPORAL_ADDRESS: '127.0.0.1:1' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: cannot reach a service: .*TEMPORAL_ADDRESS/);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('refuses an invalid study file given to status, naming the first error, exit 1', async () => {
    const result = await runCli(['status', `${INPUT}/several-errors.yaml`], { env });
    expect(result.code).toBe(1);
    expectGolden('usage/status-invalid-file', cliTranscript(result));
  });
});

describe('colour', () => {
  const painted = ['validate', `${INPUT}/several-errors.yaml`];

  it('paints diagnostics when stderr is a terminal', async () => {
    const result = await runCli(painted, { env, stderrIsTTY: true, stdoutIsTTY: true });
    expect(result.stdout).toMatch(ANSI);
    expect(result.stderr).toMatch(ANSI);
  });

  it('prints no escape codes when NO_COLOR is set, even on a terminal', async () => {
    for (const value of ['1', 'true']) {
      const result = await runCli(painted, { env: { ...env, NO_COLOR: value }, stderrIsTTY: true, stdoutIsTTY: true });
      expect(result.stdout + result.stderr).not.toMatch(ANSI);
    }
    const plan = await runCli(['plan', '--offline', 'examples/'], { env: { ...env, NO_COLOR: '1' }, stderrIsTTY: true, stdoutIsTTY: true });
    expect(plan.stdout).not.toMatch(ANSI);
  });

  it('prints no escape codes when stderr is not a terminal, or TERM is dumb', async () => {
    const piped = await runCli(painted, { env });
    expect(piped.stdout + piped.stderr).not.toMatch(ANSI);
    const dumb = await runCli(painted, { env: { ...env, TERM: 'dumb' }, stderrIsTTY: true, stdoutIsTTY: true });
    expect(dumb.stdout + dumb.stderr).not.toMatch(ANSI);
  });

  // Known CLI bug (see the report): Output decides colour for stdout from stderr.isTTY, so
  // `studyflow plan x > plan.txt` in a terminal writes escape codes into plan.txt. Drop `.fails`
  // once cli/output.ts paints stdout data only when stdout is a terminal.
  it('prints no escape codes into redirected stdout while stderr is a terminal', async () => {
    const result = await runCli(['plan', '--offline', 'examples/quickstart/study.yaml'], { env, stderrIsTTY: true });
    expect(result.stdout).not.toMatch(ANSI);
  });
});
