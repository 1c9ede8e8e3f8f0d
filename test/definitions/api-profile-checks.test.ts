// Study files checked against the connection profile: webhook events (SF4304), spec-only fields (SF4305), located;
// and `migrate` renaming the events to the profile's.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStudyText, migrateStudyText } from '../../definitions';

const EXAMPLES = path.resolve(import.meta.dirname, '../../examples');
const multiCountry = readFileSync(path.join(EXAMPLES, 'multi-country-tracker/study.yaml'), 'utf8');
const everyExclusion = readFileSync(path.join(EXAMPLES, 'every-exclusion/study.yaml'), 'utf8');
const FILE_MC = path.join(EXAMPLES, 'multi-country-tracker/study.yaml');
const FILE_EE = path.join(EXAMPLES, 'every-exclusion/study.yaml');

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((line) => line.includes(needle)) + 1;
const codes = (diagnostics: { code: string }[]) => diagnostics.map((d) => d.code);

describe('webhook events against the profile', () => {
  it('the sandbox profile (the default) takes the example as it is', async () => {
    const result = await loadStudyText(multiCountry, FILE_MC, { env: {} });
    expect(codes(result.diagnostics).filter((c) => c.startsWith('SF43'))).toEqual([]);
    expect((await loadStudyText(multiCountry, FILE_MC, { env: {}, apiProfile: 'sandbox' })).study).toBeDefined();
  });

  it('cint: the spec\'s session event is SF4304 at its file:line:col, naming the cint name and migrate; gzip is SF4305', async () => {
    const result = await loadStudyText(multiCountry, FILE_MC, { env: {}, apiProfile: 'cint' });
    expect(result.study).toBeUndefined();
    const event = result.diagnostics.find((d) => d.code === 'SF4304')!;
    expect(event).toMatchObject({ severity: 'error', file: FILE_MC, line: lineOf(multiCountry, 'com.svc.session.updated'), path: ['webhooks', 0, 'events', 1] });
    expect(event.column).toBe(multiCountry.split('\n')[event.line - 1].indexOf('com.svc.session.updated') + 1);
    expect(event.message).toMatch(/`com\.svc\.session\.updated` is an event of the sandbox profile, not the cint profile/);
    expect(event.hint).toMatch(/`session-updated`.*studyflow migrate --profile cint/);
    const gzip = result.diagnostics.find((d) => d.code === 'SF4305')!;
    expect(gzip).toMatchObject({ severity: 'error', line: lineOf(multiCountry, 'compression: gzip'), path: ['webhooks', 0, 'compression'] });
  });

  it('cint refuses any name outside the reference\'s list; sandbox refuses the cint names and warns on unknown ones', async () => {
    const withEvents = (events: string, compression = 'null') => multiCountry.replace('events: [target-group-updated, com.svc.session.updated]', `events: [${events}]`).replace('compression: gzip', `compression: ${compression}`);
    const cint = await loadStudyText(withEvents('target-group-updated, quota-fill-registered, session-updated, com.example.thing'), FILE_MC, { env: {}, apiProfile: 'cint' });
    expect(cint.diagnostics.filter((d) => d.code.startsWith('SF43')).map((d) => `${d.code} ${String(d.path?.at(-1))}`)).toEqual(['SF4304 3']);
    const sandbox = await loadStudyText(withEvents('target-group-updated, session-updated, quota-fill-registered, com.example.thing'), FILE_MC, { env: {}, apiProfile: 'sandbox' });
    expect(sandbox.diagnostics.filter((d) => d.code.startsWith('SF43')).map((d) => `${d.code} ${String(d.path?.at(-1))}`)).toEqual(['SF4304 1', 'SF4304 2', 'SF4302 3']);
    expect(sandbox.diagnostics.find((d) => d.code === 'SF4304')?.hint).toMatch(/`com\.svc\.session\.updated`/);
  });
});

describe('respondent_statuses under cint', () => {
  it('statuses other than [Complete] are SF4305 at the item\'s statuses; [Complete] is accepted', async () => {
    const result = await loadStudyText(everyExclusion, FILE_EE, { env: {}, apiProfile: 'cint', allowOutsidePaths: true });
    const found = result.diagnostics.filter((d) => d.code === 'SF4305');
    expect(found.map((d) => d.line)).toEqual([lineOf(everyExclusion, '[Terminate, OverQuota]'), lineOf(everyExclusion, '[Complete, SecurityFailure]')]);
    expect(found[0].message).toMatch(/excludes completes only/);
    const sandbox = await loadStudyText(everyExclusion, FILE_EE, { env: {}, apiProfile: 'sandbox', allowOutsidePaths: true });
    expect(codes(sandbox.diagnostics)).not.toContain('SF4305');
  });
});

describe('migrate renames webhook events to the profile\'s', () => {
  it('to cint and back, on the same line, keeping quotes and everything else', () => {
    const text = 'study: x\nwebhooks:\n  - url: https://h.example.com/a # keep\n    events: [target-group-updated, "com.svc.session.updated"]\n  - url: https://h.example.com/b\n    events:\n      - com.svc.session.updated\n      - quota-fill-registered\n';
    const toCint = migrateStudyText(text, { apiProfile: 'cint' });
    expect(toCint.text).toBe(text.replace('"com.svc.session.updated"', '"session-updated"').replace('- com.svc.session.updated', '- session-updated'));
    expect(toCint.changes).toEqual([
      { line: 4, from: 'com.svc.session.updated', to: 'session-updated', note: "the cint profile's event name" },
      { line: 7, from: 'com.svc.session.updated', to: 'session-updated', note: "the cint profile's event name" },
    ]);
    const back = migrateStudyText(toCint.text, { apiProfile: 'sandbox' });
    expect(back.text).toBe(text);
    expect(migrateStudyText(text).changes).toEqual([]);
  });

  it('the migrated example validates under cint apart from its gzip', async () => {
    const migrated = migrateStudyText(multiCountry, { apiProfile: 'cint' }).text;
    const result = await loadStudyText(migrated, FILE_MC, { env: {}, apiProfile: 'cint' });
    expect(codes(result.diagnostics).filter((c) => c.startsWith('SF43'))).toEqual(['SF4305']);
  });
});
