// Lint: type-aware rules everywhere, and the Temporal workflow sandbox rule under workflows/.
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

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
            { group: ['../activities/*', '../activities'], allowTypeImports: true, message: 'Import activities as types only.' },
            { group: ['../sandbox/*', '../worker/*', '../cli/*'], message: 'Workflows may not depend on I/O layers.' },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'process', message: 'No process access in workflow code.' }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
