// Lint: type-aware rules everywhere, the Temporal workflow sandbox rule under workflows/, and the house's
// boundaries: every top-level folder may import only the folders (or files) MAY_IMPORT names for it, checked by
// the `studyflow/layers` rule below (docs/architecture.md shows the table; test/architecture/layers.test.ts holds
// the two equal and shows the rule refusing). Package boundaries (no I/O in plan/, no Node in workflows/, ...)
// are the no-restricted-imports blocks.
import path from 'node:path';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
// Built-ins that reach outside the process (files, network, processes): crypto, url and the like stay allowed.
const ioModules = ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'dgram', 'dns', 'child_process', 'cluster', 'worker_threads', 'tls', 'readline'];
const ioBuiltins = [...ioModules, ...ioModules.map((m) => `node:${m}`)];

/** The runtime folders: what the package ships (compiled into dist/) and what runs in a worker. */
const RUNTIME = ['shared', 'definitions', 'schema', 'plan', 'api', 'blobs', 'temporal', 'telemetry', 'notify', 'activities', 'workflows', 'webhooks', 'worker', 'dev', 'client', 'cli', 'sandbox'];

/**
 * What each top-level folder may import besides itself: a folder (`api`), one module of a folder
 * (`workflows/messages`), or, prefixed `type:`, types only. Anything else is refused by `studyflow/layers`,
 * and a folder missing here is refused too, so every new folder gets a boundary. Runtime code never imports
 * scripts/, bench/ or test/ (no runtime folder names them).
 */
export const MAY_IMPORT = {
  shared: [],
  definitions: ['shared', 'schema'],
  plan: ['definitions', 'shared'],
  api: ['shared'],
  blobs: ['shared'],
  temporal: ['shared'],
  telemetry: [],
  notify: ['shared'],
  activities: ['api', 'blobs', 'plan', 'notify', 'shared'],
  workflows: ['plan', 'shared', 'type:activities'],
  webhooks: ['blobs', 'temporal', 'telemetry', 'workflows/messages', 'shared', 'type:activities'],
  worker: ['activities', 'api', 'blobs', 'temporal', 'telemetry', 'webhooks', 'workflows/activity-proxies', 'workflows/search-attributes', 'shared'],
  dev: ['api', 'temporal', 'webhooks', 'worker', 'workflows/search-attributes', 'sandbox', 'shared'],
  // The study client: the application layer every command works through. It holds the one Temporal connection
  // and the one error mapping, asks the API itself through the plain operations of api/operations/ over its own
  // caller (plan's observe and checks, doctor's), and runs the planning core's pipeline. Of workflows/ it sees the
  // public contract (workflows/messages), never the parent <-> child protocol (workflows/child-protocol).
  client: [
    'definitions', 'plan', 'api', 'blobs', 'temporal', 'shared',
    'workflows/messages', 'workflows/search-attributes', 'type:workflows/study-workflow',
  ],
  // The `studyflow` command: argument parsing, views and wiring. Every call goes through the client; the
  // processes it starts (worker, receiver, dev stack, sandbox) are wired to their bootstraps, named one by one.
  cli: [
    'client', 'definitions', 'shared', 'type:plan', 'type:workflows/messages', 'dev', 'sandbox',
    'worker/worker-process', 'worker/receiver-process', 'worker/studyflow-worker', 'worker/reachability-check', 'worker/package-files',
    'worker/replay-check',
  ],
  sandbox: [],
  bench: RUNTIME,
  scripts: RUNTIME,
  test: [...RUNTIME, 'bench', 'scripts'],
  bin: [],
  action: [],
};

const ROOT = import.meta.dirname;
const SOURCE_EXTENSION = /(\.d)?\.(ts|mts|mjs|js|json)$/;

/** The repository path of a relative import from `file`, without its extension (`api/http/errors`). */
function importedPath(file, source) {
  return path.relative(ROOT, path.resolve(path.dirname(file), source)).split(path.sep).join('/').replace(SOURCE_EXTENSION, '');
}

function allows(entries, target, typeOnly) {
  return entries.some((entry) => {
    const [kind, name] = entry.startsWith('type:') ? ['type', entry.slice(5)] : ['value', entry];
    if (kind === 'type' && !typeOnly) return false;
    return target === name || target.startsWith(`${name}/`);
  });
}

const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: "Imports between top-level folders follow the house's MAY_IMPORT table." },
    schema: [],
    messages: {
      refused: '{{from}}/ may not import {{target}} (it may import: {{allowed}}; eslint.config.js MAY_IMPORT, docs/architecture.md).',
      noBoundary: '{{from}}/ has no layer boundary: add it to MAY_IMPORT in eslint.config.js and to docs/architecture.md.',
    },
  },
  create(context) {
    const file = context.filename;
    const relative = path.relative(ROOT, file).split(path.sep);
    if (relative.length < 2 || relative[0] === '..') return {};
    const from = relative[0];
    const entries = MAY_IMPORT[from];
    const check = (node, source, typeOnly) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = importedPath(file, source);
      const top = target.split('/')[0];
      if (top === from || top === '..') return;
      if (!entries) {
        context.report({ node, messageId: 'noBoundary', data: { from } });
      } else if (!allows(entries, target, typeOnly)) {
        context.report({ node, messageId: 'refused', data: { from, target, allowed: entries.join(', ') || 'nothing outside itself' } });
      }
    };
    const allTypes = (specifiers, kind) => specifiers.length > 0 && specifiers.every((s) => s[kind] === 'type');
    return {
      ImportDeclaration: (node) => check(node, node.source.value, node.importKind === 'type' || allTypes(node.specifiers, 'importKind')),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value, node.exportKind === 'type' || allTypes(node.specifiers, 'exportKind')),
      ExportAllDeclaration: (node) => check(node, node.source.value, node.exportKind === 'type'),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value, false),
      TSImportType: (node) => {
        const literal = node.source ?? (node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument);
        if (literal?.type === 'Literal') check(node, literal.value, true);
      },
    };
  },
};

/** The project's own lint rules. */
export const studyflowPlugin = { rules: { layers: layersRule } };

/**
 * No decision in workflows/ reads a rendered string (issue 35): the plan hands the workflows typed data (requests,
 * judgements, reasons) and text is rendered last, in views. So workflow code neither matches nor takes apart text:
 * no regex literal or RegExp, no split, match, matchAll or search. A `replace` with a string pattern that fills a
 * placeholder the plan defined (an Idempotency-Key's `{attempt}`) builds a value and stays allowed. The one regex
 * left, workflows/target-group/console.ts's filter keyword (it writes text from a reason; nothing reads it back), is
 * allowed on its line.
 * test/architecture/text-decisions.test.ts shows each refused, and every file of workflows/ clean.
 */
export const TEXT_DECISION_SYNTAX = [
  { selector: 'Literal[regex]', message: 'No regex in workflows/: decide on the typed data the plan gives, never by matching text.' },
  { selector: 'NewExpression[callee.name="RegExp"], CallExpression[callee.name="RegExp"]', message: 'No RegExp in workflows/: decide on the typed data the plan gives, never by matching text.' },
  {
    selector: 'CallExpression[callee.property.name=/^(split|match|matchAll|search)$/]',
    message: 'No text parsing in workflows/ (split, match, search): carry the value as typed data instead of reading it back from a string.',
  },
];

/** A no-restricted-imports rule refusing the named packages (each with its message). */
const refusePackages = (entries, patterns = []) => ['error', { paths: entries.map(([name, message]) => ({ name, message })), patterns }];

export default tseslint.config(
  { ignores: ['node_modules/**', '.studyflow/**', 'coverage/**', 'bench/out/**', 'docs/**', 'dist/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // The folder boundaries, for every source file (TypeScript and plain JavaScript alike).
    files: ['**/*.ts', '**/*.mts', '**/*.js', '**/*.mjs'],
    plugins: { studyflow: studyflowPlugin },
    rules: { 'studyflow/layers': 'error' },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O libraries.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': refusePackages([
        ...nodeBuiltins.map((name) => [name, 'Node built-ins are not allowed in workflow code (Temporal sandbox).']),
        ['undici', 'Workflows do no I/O; call an activity.'],
        ['@aws-sdk/client-s3', 'Workflows do no I/O; call an activity.'],
        ['@temporalio/client', 'Workflows cannot use the client.'],
        ['@temporalio/worker', 'Workflows cannot use the worker.'],
      ]),
      'no-restricted-globals': ['error', { name: 'process', message: 'No process access in workflow code.' }],
    },
  },
  {
    // Workflows decide on typed data, never on rendered text (TEXT_DECISION_SYNTAX above).
    files: ['workflows/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...TEXT_DECISION_SYNTAX] },
  },
  {
    // The planning core is pure: it decides, it does not reach anything (no Temporal, no I/O).
    files: ['plan/**/*.ts'],
    rules: {
      'no-restricted-imports': refusePackages(
        [...ioBuiltins.map((name) => [name, 'plan/ is pure: no I/O.']), ['undici', 'plan/ is pure: no I/O.'], ['@aws-sdk/client-s3', 'plan/ is pure: no I/O.']],
        [{ group: ['@temporalio/*'], message: 'plan/ knows nothing of Temporal.' }],
      ),
      'no-restricted-globals': ['error', { name: 'process', message: 'plan/ reads no environment.' }],
    },
  },
  {
    // The study model reads files; it knows nothing of Temporal, the API or object storage.
    files: ['definitions/**/*.ts'],
    rules: {
      'no-restricted-imports': refusePackages(
        [['undici', 'definitions/ sends no requests.'], ['@aws-sdk/client-s3', 'definitions/ reads local files only.']],
        [{ group: ['@temporalio/*'], message: 'definitions/ knows nothing of Temporal.' }],
      ),
    },
  },
  {
    // The Demand API client: HTTP and wire schemas. Of Temporal only ApplicationFailure (@temporalio/common).
    files: ['api/**/*.ts'],
    rules: {
      'no-restricted-imports': refusePackages(
        [['@aws-sdk/client-s3', 'api/ knows nothing of the blob stores.']],
        [{ group: ['@temporalio/*', '!@temporalio/common'], message: 'api/ uses only @temporalio/common (ApplicationFailure); activities adapt it to Temporal.' }],
      ),
    },
  },
  {
    // The blob stores: files and S3, nothing of Temporal or the API.
    files: ['blobs/**/*.ts'],
    rules: {
      'no-restricted-imports': refusePackages([['undici', 'blobs/ does not talk to the Demand API.']], [{ group: ['@temporalio/*'], message: 'blobs/ knows nothing of Temporal.' }]),
    },
  },
  {
    // The CLI's and the worker's Temporal plumbing. The CLI loads it at every start: no worker package here
    // (about 70 ms), no HTTP client, no AWS SDK.
    files: ['temporal/**/*.ts'],
    rules: {
      'no-restricted-imports': refusePackages([
        ['@temporalio/worker', "temporal/ is the client's side; the worker's connection is worker/worker-connection.ts."],
        ['undici', 'temporal/ does not talk to the Demand API.'],
        ['@aws-sdk/client-s3', 'temporal/ does not touch object storage (blobs/ does).'],
      ]),
    },
  },
  {
    // Metrics and the /metrics, /healthz endpoint: node:http only, nothing of Temporal, the API or storage.
    files: ['telemetry/**/*.ts'],
    rules: {
      'no-restricted-imports': refusePackages(
        [['undici', 'telemetry/ serves; it sends nothing.'], ['@aws-sdk/client-s3', 'telemetry/ does not touch object storage.']],
        [{ group: ['@temporalio/*'], message: 'telemetry/ knows nothing of Temporal; worker/ and webhooks/ hand it what to check.' }],
      ),
    },
  },
  {
    // Notifications: the message each event becomes and one POST of it; activities/notify.ts adapts it to Temporal.
    files: ['notify/**/*.ts'],
    rules: {
      'no-restricted-imports': refusePackages(
        [['@aws-sdk/client-s3', 'notify/ does not touch object storage.']],
        [{ group: ['@temporalio/*'], message: 'notify/ knows nothing of Temporal; activities/notify.ts is the activity.' }],
      ),
    },
  },
  {
    // The webhook receiver: verified deliveries become workflow updates through the Temporal client.
    files: ['webhooks/**/*.ts'],
    rules: {
      'no-restricted-imports': refusePackages([
        ['@temporalio/worker', 'webhooks/ runs beside workers, not as one.'],
        ['undici', 'webhooks/ receives; it sends no requests to the Demand API.'],
      ]),
    },
  },
  {
    // The CLI makes no call of its own: no Temporal client, no HTTP client, no object storage (the study
    // client makes the calls; the worker and receiver bootstraps open their own connections).
    files: ['cli/**/*.ts'],
    rules: {
      'no-restricted-imports': refusePackages(
        [['undici', 'The CLI sends no HTTP requests; the study client (client/) makes every call.'], ['@aws-sdk/client-s3', 'The CLI touches no object storage; the study client stores ID lists.']],
        [{ group: ['@temporalio/*'], message: 'The CLI holds no Temporal connection; the study client (client/) does.' }],
      ),
    },
  },
  {
    // The study client loads at every start of plan, apply and status: no worker package (about 70 ms), and
    // the API client and the blob stores only through what it imports when a call needs them.
    files: ['client/**/*.ts'],
    rules: {
      'no-restricted-imports': refusePackages([
        ['@temporalio/worker', 'The study client is a Temporal client; the worker is worker/.'],
        ['undici', 'The study client sends no HTTP itself; it asks the API through api/ (api/operations over the api/http client).'],
      ]),
    },
  },
  {
    // The sandbox is the other side of the wire, written from the spec alone: no engine package either.
    files: ['sandbox/**/*.ts'],
    rules: {
      'no-restricted-imports': refusePackages(
        [['undici', 'sandbox/ answers requests; it uses node:http only.'], ['zod', 'sandbox/ validates by hand, from the spec.'], ['ajv', 'sandbox/ validates by hand, from the spec.']],
        [{ group: ['@temporalio/*', '@aws-sdk/*'], message: 'sandbox/ knows nothing of the engine.' }],
      ),
    },
  },
  {
    // Vocabulary every layer may import: it imports nothing.
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': refusePackages([], [{ group: ['@temporalio/*', 'undici', 'zod', '@aws-sdk/*'], message: 'shared/ imports nothing outside itself.' }]),
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
