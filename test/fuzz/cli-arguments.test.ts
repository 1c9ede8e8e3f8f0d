import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, runCli, type CapturedRun } from '../cli/run-cli';

// Random argv to `main()`: whatever the arguments, the CLI exits 0, 1 or 2, says what went wrong
// without a stack trace, returns within a bound, and makes no Demand API call unless it was given a
// valid study. "The API" is a local server that counts every request it receives; Temporal is an
// address where nothing listens.

const PER_RUN_TIMEOUT_MS = 20_000;
const SECRET = 'fuzz-client-secret-5e0d7a93c1';
/** Commands that run until interrupted when their arguments are valid: only tried with invalid options below. */
const LONG_RUNNING = new Set(['dev', 'demo', 'sandbox', 'worker', 'receiver']);

const VALID_STUDY = `format: studyflow/v1
study: fuzz-valid
account: "1001"
business_unit: "2001"
project:
  name: Fuzz valid
  project_customer_reference_number: PO-FUZZ-VALID
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/fuzz?rid=[%RID%]
    expected_incidence_rate: 0.5
    expected_length_of_interview_minutes: 10
    filling_goal: 100
    project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"
    collects_pii: false
`;

/** Files the random argv may name: none is a valid study, so no run may reach the API. */
const FIXTURES: Record<string, string> = {
  'invalid.yaml': VALID_STUDY.replace('filling_goal: 100', 'filling_goal: -3').replace('locale: en_US', 'locale: xx_XX'),
  'broken.yaml': 'format: studyflow/v1\nstudy: [unclosed\n  target_groups: {\n',
  'unknown-field.yaml': VALID_STUDY.replace('format: studyflow/v1\n', 'format: studyflow/v1\nunknown_field: 1\n'),
  'empty.yaml': '',
  'ids.txt': 'rsid-1\nrsid-2\nrsid 3\n',
  'not-yaml.json': '{"study": 1, "format": "studyflow/v2"}',
  'dir/one.yaml': VALID_STUDY.replace('study: fuzz-valid', 'study: Not Valid!'),
  'dir/two.yml': 'format: studyflow/v1\n',
};

class CountingApi {
  requests: string[] = [];
  private server = http.createServer((req, res) => {
    this.requests.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"object":"service_unavailable","message":"counting server"}');
  });
  url = '';
  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const commands = fc.constantFrom('validate', 'schema', 'plan', 'apply', 'status', 'approve', 'cancel', 'fielding', 'migrate', 'help', 'nope', 'APPLY', '');
const options = fc.constantFrom(
  '--json', '--format', '--format=json', '--format=xml', '--detailed-exitcode', '--offline', '--no-wait', '--require-live',
  '--timeout', '--timeout=0', '--git-revision', '--target-group', '--check', '--help', '-h', '--version', '-V', '--', '-', '--unknown',
  '-x', '--json=yes', '--no-json', '--port', '--state-file',
);
const values = fc.constantFrom('human', 'json', 'markdown', 'github', 'pause', 'resume', 'complete', 'stop', '0', '-1', '1e309', 'NaN', '99999999999999999999', 'abc', '1001', 'fuzz-valid', 'us', ' ', '\t', '=', '%s%n', '${HOME}', '$(id)', '../outside.yaml', '/dev/null', 'C:\\x', '😀', '\u0000');
const paths = fc.constantFrom(...Object.keys(FIXTURES), 'dir', 'dir/', 'missing.yaml', 'missing/', 'ids.txt/x');
const randomText = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 8 }));
const token = fc.oneof(
  { weight: 3, arbitrary: commands },
  { weight: 4, arbitrary: options },
  { weight: 3, arbitrary: values },
  { weight: 4, arbitrary: paths },
  { weight: 2, arbitrary: randomText },
);
const some = <T>(arb: fc.Arbitrary<T>, max = 2) => fc.array(arb, { maxLength: max });
const flag = (name: string, value: fc.Arbitrary<string>) => fc.option(fc.tuple(fc.constant(name), value), { nil: undefined }).map((t) => t ?? []);
const target = fc.oneof(paths, values, randomText);

/** Well-formed shapes of each command (the files are never valid studies), so runs get past the parser. */
const shaped = fc.oneof(
  fc.tuple(fc.constant(['validate']), some(paths, 3), flag('--format', fc.constantFrom('human', 'github', 'json', 'yaml')), some(fc.constantFrom('--json'), 1)),
  fc.tuple(fc.constant(['plan']), some(paths, 3), flag('--format', fc.constantFrom('human', 'json', 'markdown', 'github', 'html')), some(fc.constantFrom('--offline', '--json', '--detailed-exitcode'))),
  fc.tuple(fc.constant(['apply']), some(paths, 3), flag('--timeout', fc.oneof(values, fc.constantFrom('0', '0.001', '-5', '1e9'))), some(fc.constantFrom('--no-wait', '--require-live', '--json')), flag('--git-revision', values)),
  fc.tuple(fc.constantFrom(['status'], ['approve'], ['cancel']), fc.tuple(target), flag('--target-group', values), some(fc.constantFrom('--json'), 1)),
  fc.tuple(fc.constant(['fielding']), fc.tuple(fc.oneof(values, fc.constantFrom('pause', 'resume', 'complete'))), fc.tuple(target), flag('--target-group', values)),
  fc.tuple(fc.constant(['migrate']), fc.tuple(paths), some(fc.constantFrom('--check', '--json'))),
  fc.tuple(fc.constantFrom(['schema'], ['help'], ['--help'], ['--version']), some(token, 1)),
).map((parts) => (parts as string[][]).flat());

/** A shaped argv with up to two random tokens inserted or removed, or plain token soup. */
const argvArbitrary = fc
  .oneof(
    { weight: 3, arbitrary: shaped },
    {
      weight: 2,
      arbitrary: fc.tuple(shaped, some(fc.tuple(fc.nat(), token)), fc.nat()).map(([argv, inserts, drop]) => {
        const out = [...argv];
        for (const [at, t] of inserts) out.splice(at % (out.length + 1), 0, t);
        if (out.length > 1 && drop % 3 === 0) out.splice(1 + (drop % (out.length - 1)), 1);
        return out;
      }),
    },
    { weight: 1, arbitrary: fc.tuple(commands, fc.array(token, { maxLength: 7 })).map(([first, rest]) => [first, ...rest]) },
  )
  .filter((argv) => !LONG_RUNNING.has(argv.find((a) => !a.startsWith('-')) ?? ''));

async function runBounded(argv: string[], env: Record<string, string>): Promise<CapturedRun> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`studyflow ${JSON.stringify(argv)} did not return within ${PER_RUN_TIMEOUT_MS} ms`)), PER_RUN_TIMEOUT_MS);
  });
  try {
    return await Promise.race([runCli(argv, { env }), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function expectWellBehaved(argv: string[], run: CapturedRun): void {
  const where = `studyflow ${JSON.stringify(argv)}\n--- stdout ---\n${run.stdout.slice(0, 2000)}\n--- stderr ---\n${run.stderr.slice(0, 2000)}`;
  expect([0, 1, 2], where).toContain(run.code);
  const output = run.stdout + run.stderr;
  expect(output, where).not.toMatch(/^\s{4}at /m);
  expect(output, where).not.toMatch(/\[object Object\]|\bat file:\/\/|node:internal/);
  expect(output, where).not.toContain(SECRET);
  // A failure says why: on stderr, or as the JSON document on stdout with --json.
  if (run.code !== 0) expect(output.trim(), where).not.toBe('');
}

describe('studyflow under random arguments', () => {
  let api: CountingApi;
  let dir: string;
  let remove: () => void;
  let env: Record<string, string>;
  const cwd = process.cwd();

  function writeFixtures(): void {
    for (const [name, text] of Object.entries(FIXTURES)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    fs.rmSync(path.join(dir, 'valid'), { recursive: true, force: true });
  }

  beforeAll(async () => {
    api = new CountingApi();
    await api.start();
    ({ dir, remove } = makeTempDir('fuzz-cli'));
    // Relative paths in random argv resolve here, never in the repository.
    process.chdir(dir);
    env = {
      HOME: dir,
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      STUDYFLOW_API_BASE_URL: api.url,
      STUDYFLOW_AUTH_URL: `${api.url}/auth`,
      STUDYFLOW_AUDIENCE: 'https://demand-api.fuzz.local',
      STUDYFLOW_CLIENT_ID: 'fuzz-client',
      STUDYFLOW_CLIENT_SECRET: SECRET,
      STUDYFLOW_BLOB_DIR: path.join(dir, 'blobs'),
      NO_COLOR: '1',
    };
  });
  afterAll(async () => {
    process.chdir(cwd);
    await api?.close();
    remove?.();
  });

  it('the counting API counts: a valid study makes `plan` call it (the control for the properties below)', async () => {
    fs.mkdirSync(path.join(dir, 'valid'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'valid', 'study.yaml'), VALID_STUDY);
    const before = api.requests.length;
    const run = await runBounded(['plan', 'valid/study.yaml'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: .*503/m);
    expect(api.requests.length).toBeGreaterThan(before);
    expectWellBehaved(['plan', 'valid/study.yaml'], run);
  });

  it('exits 0, 1 or 2 without a stack trace, returns in time, and never calls the API', async () => {
    await fc.assert(
      fc.asyncProperty(argvArbitrary, async (argv) => {
        writeFixtures();
        const before = api.requests.length;
        const run = await runBounded(argv, env);
        expectWellBehaved(argv, run);
        expect(api.requests.slice(before), `studyflow ${JSON.stringify(argv)} called the API`).toEqual([]);
      }),
      { numRuns: 200, endOnFailure: true },
    );
  }, 300_000);

  it('commands that need Temporal fail with a named error when it is unreachable, without calling the API', async () => {
    const cases: string[][] = [
      ['status', 'fuzz-valid', '--account', '1001'],
      ['status', 'fuzz-valid', '--account', '1001', '--json'],
      ['approve', 'fuzz-valid', '--account', '1001', '--target-group', 'us'],
      ['cancel', 'fuzz-valid', '--account', '1001'],
      ['fielding', 'pause', 'fuzz-valid', '--account', '1001', '--target-group', 'us'],
    ];
    const before = api.requests.length;
    // Concurrent: each waits for the connect deadline (about 5 s).
    const runs = await Promise.all(cases.map((argv) => runBounded(argv, env)));
    runs.forEach((run, i) => {
      expectWellBehaved(cases[i], run);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^error: cannot reach a service: /m);
    });
    expect(api.requests.slice(before)).toEqual([]);
  });

  it('the long-running commands refuse invalid options before starting anything', async () => {
    const cases: string[][] = [
      ['dev', '--temporal-port', 'abc'],
      ['dev', '--ui-port', '70000'],
      ['dev', '--sandbox-port', '-1'],
      ['dev', '--webhook-port', '1.5'],
      ['dev', '--bogus'],
      ['demo', '--bogus'],
      ['sandbox', '--port', 'x'],
      ['sandbox', '--port', '65536'],
      ['sandbox', '--state-file'],
      ['worker', '--bogus'],
      ['worker', 'extra-argument'],
    ];
    for (const argv of cases) {
      const before = api.requests.length;
      const run = await runBounded(argv, env);
      expectWellBehaved(argv, run);
      expect(run.code, `studyflow ${argv.join(' ')}`).toBe(2);
      expect(api.requests.slice(before)).toEqual([]);
    }
  });
});
