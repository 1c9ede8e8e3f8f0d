// The house's boundaries (eslint.config.js MAY_IMPORT, enforced by its `studyflow/layers` rule in `npm run lint`):
// every top-level source folder has one, each "may import" is shown to be accepted and everything else refused,
// runtime code never reaches scripts/, bench/ or test/, and docs/architecture.md shows exactly this table.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
type Table = Record<string, string[]>;
let MAY_IMPORT: Table;
let linter: Linter;
let config: Linter.Config[];

beforeAll(async () => {
  // A computed specifier: eslint.config.js is plain JavaScript without type declarations.
  const configUrl = pathToFileURL(path.join(ROOT, 'eslint.config.js')).href;
  const module = (await import(configUrl)) as { MAY_IMPORT: Table; studyflowPlugin: NonNullable<Linter.Config['plugins']>[string] };
  MAY_IMPORT = module.MAY_IMPORT;
  linter = new Linter({ configType: 'flat' });
  config = [
    {
      files: ['**/*.ts', '**/*.mjs'],
      languageOptions: { parser: tseslint.parser as Linter.Parser },
      plugins: { studyflow: module.studyflowPlugin },
      rules: { 'studyflow/layers': 'error' },
    },
  ];
});

/** What the layers rule says about `code` as the file `file` (repository path). */
function problems(file: string, code: string): string[] {
  return linter.verify(code, config, { filename: path.join(ROOT, file) }).map((m) => m.message);
}

/** A relative specifier from `<folder>/probe.ts` to the repository path `target`. */
const from = (target: string) => `../${target}`;

const SOURCE = /\.(ts|mts|mjs|js)$/;
const EXCLUDED = new Set(['node_modules', 'dist', 'coverage', '.git', '.studyflow', 'docs', 'examples']);

function holdsSource(dir: string): boolean {
  return fs.readdirSync(dir, { withFileTypes: true }).some((e) => (e.isDirectory() ? holdsSource(path.join(dir, e.name)) : SOURCE.test(e.name)));
}

const RUNTIME_ONLY_IMPORTS = ['scripts', 'bench', 'test'];
const TOOLING = new Set(['bench', 'scripts', 'test', 'bin', 'action']);

describe('folder boundaries', () => {
  it('every top-level folder with source files has a boundary, and every boundary names something that exists', () => {
    const folders = fs
      .readdirSync(ROOT, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !EXCLUDED.has(e.name) && holdsSource(path.join(ROOT, e.name)))
      .map((e) => e.name);
    expect(folders.length).toBeGreaterThan(15);
    for (const folder of folders) expect(MAY_IMPORT[folder], `${folder}/ has no entry in MAY_IMPORT`).toBeDefined();
    for (const [folder, entries] of Object.entries(MAY_IMPORT)) {
      expect(fs.existsSync(path.join(ROOT, folder)), folder).toBe(true);
      for (const entry of entries) {
        const target = entry.replace(/^type:/, '');
        const exists = fs.existsSync(path.join(ROOT, target)) || fs.existsSync(path.join(ROOT, `${target}.ts`));
        expect(exists, `${folder}: ${entry}`).toBe(true);
      }
    }
  });

  it('a folder without a boundary is refused by name', () => {
    expect(problems('attic/probe.ts', "import { x } from '../shared/api-version';")).toEqual([
      expect.stringContaining('attic/ has no layer boundary'),
    ]);
  });

  it('runtime code never imports scripts/, bench/ or test/', () => {
    for (const [folder, entries] of Object.entries(MAY_IMPORT)) {
      if (TOOLING.has(folder)) continue;
      for (const entry of entries) expect(RUNTIME_ONLY_IMPORTS, `${folder}: ${entry}`).not.toContain(entry.replace(/^type:/, '').split('/')[0]);
    }
    // The import the dev servers had before the house was sorted (worker/temporal-dev-server.ts -> scripts/).
    expect(problems('dev/temporal-dev-server.ts', "import { installTemporalCli } from '../scripts/temporal-cli.mjs';")).toEqual([
      expect.stringContaining('dev/ may not import scripts/temporal-cli'),
    ]);
    expect(problems('dev/temporal-cli.mjs', "import { goTool } from '../scripts/go-tool.mjs';")).toHaveLength(1);
  });

  it('each folder may import what its boundary names, and nothing else', () => {
    const folders = Object.keys(MAY_IMPORT);
    for (const [folder, entries] of Object.entries(MAY_IMPORT)) {
      // Accepted: each entry, as a value import (or as a type import, for a `type:` entry).
      for (const entry of entries) {
        const target = entry.replace(/^type:/, '');
        const code = entry.startsWith('type:') ? `import type { X } from '${from(target)}';` : `import { x } from '${from(target)}';`;
        expect(problems(`${folder}/probe.ts`, code), `${folder} -> ${entry}`).toEqual([]);
      }
      // Refused: every other top-level folder, as a value import.
      const allowedWhole = new Set(entries.filter((e) => !e.startsWith('type:') && !e.includes('/')));
      for (const other of folders) {
        if (other === folder || allowedWhole.has(other)) continue;
        expect(problems(`${folder}/probe.ts`, `import { x } from '${from(`${other}/anything`)}';`), `${folder} -> ${other}`).toEqual([
          expect.stringContaining(`${folder}/ may not import ${other}/anything`),
        ]);
      }
    }
  });

  it('a types-only entry refuses values, also re-exported or imported dynamically', () => {
    expect(problems('workflows/probe.ts', "import type { ActivityCtx } from '../activities';")).toEqual([]);
    expect(problems('workflows/probe.ts', "import { type ActivityCtx } from '../activities';")).toEqual([]);
    expect(problems('workflows/probe.ts', "export type { ActivityCtx } from '../activities';")).toEqual([]);
    expect(problems('workflows/probe.ts', "type T = import('../activities').ActivityCtx;")).toEqual([]);
    expect(problems('workflows/probe.ts', "import { createActivities } from '../activities';")).toHaveLength(1);
    expect(problems('workflows/probe.ts', "export { createActivities } from '../activities';")).toHaveLength(1);
    expect(problems('workflows/probe.ts', "export * from '../activities';")).toHaveLength(1);
    expect(problems('workflows/probe.ts', "const m = import('../activities');")).toHaveLength(1);
  });

  it('a module entry admits that module only', () => {
    expect(problems('webhooks/probe.ts', "import { targetGroupEventOnceUpdate } from '../workflows/messages';")).toEqual([]);
    expect(problems('webhooks/probe.ts', "import { studyWorkflow } from '../workflows/study-workflow';")).toHaveLength(1);
    expect(problems('cli/commands/probe.ts', "import { runWorkerProcess } from '../../worker/worker-process';")).toEqual([]);
    expect(problems('cli/commands/probe.ts', "import { createWorkerActivities } from '../../worker/worker-activities';")).toHaveLength(1);
    expect(problems('client/probe.ts', "import { runWorkerProcess } from '../worker/worker-process';")).toHaveLength(1);
  });

  it('the parent <-> child protocol stays inside workflows/: client/, cli/ and webhooks/ see the public contract only (issue 35)', () => {
    expect(problems('workflows/study/probe.ts', "import { targetGroupRevisionSignal } from '../child-protocol';")).toEqual([]);
    expect(problems('client/probe.ts', "import { statusQuery } from '../workflows/messages';")).toEqual([]);
    expect(problems('client/probe.ts', "import type { studyWorkflow } from '../workflows/study-workflow';")).toEqual([]);
    expect(problems('client/probe.ts', "import { targetGroupControlSignal } from '../workflows/child-protocol';")).toHaveLength(1);
    expect(problems('client/probe.ts', "import type { TargetGroupRevision } from '../workflows/child-protocol';")).toHaveLength(1);
    expect(problems('cli/probe.ts', "import type { TargetGroupProgress } from '../workflows/child-protocol';")).toHaveLength(1);
    expect(problems('webhooks/probe.ts', "import { targetGroupFiguresSignal } from '../workflows/child-protocol';")).toHaveLength(1);
    expect(problems('webhooks/probe.ts', "import type { TargetGroupFigures } from '../workflows/child-protocol';")).toHaveLength(1);
    for (const folder of ['worker', 'dev']) {
      expect(problems(`${folder}/probe.ts`, "import type { GateReading } from '../workflows/child-protocol';"), folder).toHaveLength(1);
    }
  });

  it('cli/ holds no Temporal connection, no activity and no API call: those belong to the study client', () => {
    expect(problems('cli/commands/probe.ts', "import { withStudyClient } from '../../client';")).toEqual([]);
    expect(problems('cli/commands/probe.ts', "import { connectClient } from '../../temporal/temporal-connection';")).toHaveLength(1);
    expect(problems('cli/commands/probe.ts', "import { loadApiConfig } from '../../api/http/api-config';")).toHaveLength(1);
    expect(problems('cli/commands/probe.ts', "import { createDemandApiClient } from '../../api/http/demand-api-client';")).toHaveLength(1);
    expect(problems('cli/probe.ts', "import { createActivities } from '../activities';")).toHaveLength(1);
    expect(problems('cli/probe.ts', "import { checkConnection } from '../api/operations/connection-check';")).toHaveLength(1);
    expect(problems('cli/commands/probe.ts', "import { writeDevApiProfile } from '../../api/http/api-environment';")).toHaveLength(1);
    expect(problems('cli/commands/probe.ts', "import { noteDevApiProfile } from '../../dev/embedded-stack';")).toEqual([]);
    expect(problems('cli/probe.ts', "import { statusQuery } from '../workflows/messages';")).toHaveLength(1);
    expect(problems('cli/probe.ts', "import type { StudyStatus } from '../workflows/messages';")).toEqual([]);
  });

  it('the study client asks the API through api/ itself, never through the activities or the worker (issue 35)', () => {
    expect(problems('client/probe.ts', "import { observeStudy } from '../api/operations/observe-study';")).toEqual([]);
    expect(problems('client/probe.ts', "import { demandApiFromEnv } from '../api/http/api-client-env';")).toEqual([]);
    expect(problems('client/probe.ts', "import { createWorkerActivities } from '../worker/worker-activities';")).toHaveLength(1);
    expect(problems('client/probe.ts', "import { observeStudyActivities } from '../activities/observe-study';")).toHaveLength(1);
    expect(problems('client/probe.ts', "import type { ActivityCtx } from '../activities/types';")).toHaveLength(1);
  });

  it('imports inside a folder and package imports are not its business', () => {
    expect(problems('api/wire/probe.ts', "import { speaksSpec } from '../http/dialect';\nimport { z } from 'zod';")).toEqual([]);
  });
});

describe('docs/architecture.md', () => {
  it('shows the boundaries exactly as eslint.config.js holds them', () => {
    const text = fs.readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const runtime = MAY_IMPORT.scripts;
    const documented: Table = {};
    for (const line of text.split('\n')) {
      const row = /^\| `([a-z]+)\/` \|[^|]*\| (.*) \|$/.exec(line);
      if (!row) continue;
      const cell = row[2];
      const entries = [...cell.matchAll(/`([a-z/-]+)`( \(types only\))?/g)].map((m) => (m[2] ? `type:${m[1].replace(/\/$/, '')}` : m[1].replace(/\/$/, '')));
      documented[row[1]] = cell.includes('any runtime folder') ? [...runtime, ...entries] : entries;
    }
    const sorted = (t: Table): Table => Object.fromEntries(Object.keys(t).sort().map((k) => [k, [...t[k]].sort()]));
    expect(sorted(documented)).toEqual(sorted(MAY_IMPORT));
  });
});
