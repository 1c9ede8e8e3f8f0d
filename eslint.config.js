// Lint: type-aware rules everywhere, the Temporal workflow sandbox rule under workflows/, and the
// layer boundaries: plan/ pure, activities/ below workflows/, cli/ without the API client, sandbox/ and
// shared/ self-contained.
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
// Built-ins that reach outside the process (files, network, processes): crypto, url and the like stay allowed.
const ioModules = ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'dgram', 'dns', 'child_process', 'cluster', 'worker_threads', 'tls', 'readline'];
const ioBuiltins = [...ioModules, ...ioModules.map((m) => `node:${m}`)];
/** Import patterns that reach the named top-level folders from anywhere below the repository root. */
const layers = (names) => names.flatMap((name) => [`**/${name}`, `**/${name}/**`, `../${name}`, `../${name}/**`]);

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
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O libraries,
    // and activities are imported as types only.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({ name, message: 'Node built-ins are not allowed in workflow code (Temporal sandbox).' })),
            { name: 'undici', message: 'Workflows do no I/O; call an activity.' },
            { name: '@temporalio/client', message: 'Workflows cannot use the client.' },
            { name: '@temporalio/worker', message: 'Workflows cannot use the worker.' },
          ],
          patterns: [
            { group: layers(['activities']), allowTypeImports: true, message: 'Import activities as types only.' },
            { group: layers(['sandbox', 'worker', 'cli']), message: 'Workflows may not depend on I/O layers.' },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'process', message: 'No process access in workflow code.' }],
    },
  },
  {
    // The planning core is pure: it decides, it does not reach anything (no Temporal, activities or I/O).
    files: ['plan/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...ioBuiltins.map((name) => ({ name, message: 'plan/ is pure: no I/O.' })),
            { name: 'undici', message: 'plan/ is pure: no I/O.' },
          ],
          patterns: [
            { group: ['@temporalio/*'], message: 'plan/ knows nothing of Temporal.' },
            { group: layers(['activities', 'workflows', 'worker', 'cli', 'sandbox']), message: 'plan/ depends only on definitions/ and shared/.' },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'process', message: 'plan/ reads no environment.' }],
    },
  },
  {
    // Activities are called by workflows; they never depend on them.
    files: ['activities/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: layers(['workflows', 'worker', 'cli', 'sandbox']), message: 'activities/ may not depend on workflows, the worker, the CLI or the sandbox.' }] },
      ],
    },
  },
  {
    // The CLI asks the layers below (activities, workflows through the client); it never holds the API client.
    files: ['cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'undici', message: 'The CLI sends no HTTP requests to the API; call an activity.' }],
          patterns: [
            {
              group: ['**/api/http/demand-api-client', '**/api/http/access-token-provider', '**/activities/api-call', '**/activities/pagination', '**/api/http/index'],
              message: 'The CLI has no API client: it asks an activity.',
            },
          ],
        },
      ],
    },
  },
  {
    // The sandbox is the other side of the wire, written from the spec alone: nothing of the engine.
    files: ['sandbox/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: layers(['activities', 'workflows', 'worker', 'cli', 'plan', 'definitions', 'shared', 'bench', 'test', 'scripts']), message: 'sandbox/ imports nothing outside itself.' }] },
      ],
    },
  },
  {
    // Vocabulary every layer may import: it imports nothing.
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['../*', '@temporalio/*', 'undici'], message: 'shared/ imports nothing outside itself.' }] }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
