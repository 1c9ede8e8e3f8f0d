// The workflows' patch calls and the one list of patches (workflows/patches.ts) agree: every
// patched()/deprecatePatch() id is listed with its step and dates, and every listed patch is called in
// the step it names. Before the first release the list is empty, so no workflow has a patch.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKFLOW_PATCHES } from '../../workflows/patches';
import { TRANSITIONS } from '../../workflows/phases';

const root = path.join(import.meta.dirname, '../..');

function workflowFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? workflowFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

describe('workflow patches', () => {
  const calls = workflowFiles('workflows')
    .filter((file) => file !== path.join('workflows', 'patches.ts'))
    .flatMap((file) =>
    [...fs.readFileSync(path.join(root, file), 'utf8').matchAll(/\b(patched|deprecatePatch)\(\s*([^)]*)\)/g)].map((m) => ({ file, fn: m[1], arg: m[2].trim() })),
  );

  it('calls patched() and deprecatePatch() only with a listed id, in the step the list names', () => {
    for (const call of calls) {
      const patch = WORKFLOW_PATCHES.find((p) => call.arg === `'${p.id}'` || call.arg.endsWith(p.id));
      expect(patch, `${call.file}: ${call.fn}(${call.arg}) is not in workflows/patches.ts`).toBeDefined();
      expect(call.file).toBe(patch?.step);
    }
  });

  it('lists each patch with its dates in order, and calls every listed one', () => {
    for (const patch of WORKFLOW_PATCHES) {
      expect(patch.since < patch.deprecateOn && patch.deprecateOn < patch.removeOn, `${patch.id}: since < deprecateOn < removeOn`).toBe(true);
      expect(calls.some((c) => c.file === patch.step && c.arg.includes(patch.id)), `${patch.id} is listed but not called in ${patch.step}`).toBe(true);
    }
  });

  it('has no patch before the first release', () => {
    expect(WORKFLOW_PATCHES).toEqual([]);
    expect(calls).toEqual([]);
  });
});

describe('docs/workflows.md', () => {
  const doc = fs.readFileSync(path.join(root, 'docs/workflows.md'), 'utf8');
  const diagram = doc.slice(doc.indexOf('stateDiagram-v2'), doc.indexOf('```', doc.indexOf('stateDiagram-v2')));

  it('draws every event and phase of the target-group phase table', () => {
    for (const [event, { phase }] of Object.entries(TRANSITIONS)) {
      expect(diagram, `event ${event}`).toMatch(new RegExp(`: (.*\\W)?${event}\\b`));
      expect(diagram, `phase ${phase}`).toMatch(new RegExp(`--> ${phase}:`));
    }
  });

  it('lists the phase table with its from column as workflows/phases.ts has it', () => {
    const table = doc.slice(doc.indexOf('<!-- transitions:start -->'), doc.indexOf('<!-- transitions:end -->'));
    const rows = Object.fromEntries(
      [...table.matchAll(/^\| `(\w+)` \| (.+) \| `(\w+)` \|$/gm)].map(([, event, from, to]) => [event, { from: from.startsWith('any') ? 'any' : [...from.matchAll(/`(\w+)`/g)].map((m) => m[1]), to }]),
    );
    const every = new Set(Object.values(TRANSITIONS).flatMap((t) => t.from));
    expect(rows).toEqual(
      Object.fromEntries(Object.entries(TRANSITIONS).map(([event, t]) => [event, { from: t.from.length === every.size ? 'any' : [...t.from], to: t.phase }])),
    );
  });
});
