// migrateStudyText rewrites the spec's pre-2025-12-18 names by text edits that keep everything else.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadStudyText, migrateStudyText } from '../../definitions';

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));
const read = (rel: string) => readFileSync(path.join(fixtures, rel), 'utf8');
const expectedCodes = (text: string) => [...text.matchAll(/^# expect: (SF\d{4})/gm)].map((m) => m[1]);
const legacyFixtures = readdirSync(path.join(fixtures, 'invalid'))
  .filter((f) => f.endsWith('.yaml'))
  .filter((f) => {
    const codes = expectedCodes(read(`invalid/${f}`));
    return codes.length > 0 && codes.every((c) => c === 'SF3001' || c === 'SF3002' || c === 'SF3003');
  })
  .sort();

describe('migrateStudyText', () => {
  it('turns the legacy study into the golden file, line for line', () => {
    const { text, changes } = migrateStudyText(read('migrate/legacy-study.yaml'));
    expect(text).toBe(read('migrate/legacy-study.migrated.yaml'));
    expect(changes.map((c) => `${c.line} ${c.from}->${c.to}`)).toEqual([
      '4 2025-05-27->2025-12-18',
      '10 human-readable-id->(removed)',
      '11 purchase_order_number->project_customer_reference_number',
      '21 ratecard->rate_card',
      '22 ratecard->rate_card',
      '23 client_cpi->client_cost_per_interview_note',
      '23 client_cost_per_interview_note: 2.00 USD->{ value: "2.00", currency_code: USD }',
      '28 ungrouped->targets',
      '29 index->conditions',
      '33 quota_percentage->completes_goal_percentage',
      '34 index->conditions',
      '37 quota_percentage->completes_goal_percentage',
      '41 indexes->conditions',
      '42 indexes->conditions',
      '45 open_ended_group->(removed)',
      '50 zip_code->open_ended',
      '52 zip_codes->open_ended_values',
      '53 values->open_ended_values',
      '54 interlocked_profiles->profiles',
      '57 grouped->targets',
      '58 indexes->conditions',
      '61 indexes->conditions',
      '73 interlocked_profiles->profiles',
      '82 filling_goal->completes_goal',
      '83 quota_nominal->completes_goal',
    ]);
  });

  it('removes the project\'s human_readable_id (the API assigns it) with a note, and nothing of the same name elsewhere', () => {
    const text = [
      'format: studyflow/v1',
      'study: hrid-study',
      'account: "1001"',
      'business_unit: "2001"',
      'project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"',
      'project:',
      '  name: Some project',
      '  human_readable_id: some_project # set by hand before',
      '  project_customer_reference_number: PO-7',
      'target_groups:',
      '  us:',
      '    name: human_readable_id',
      '',
    ].join('\n');
    const { text: out, changes } = migrateStudyText(text);
    expect(out).toBe(text.replace('  human_readable_id: some_project # set by hand before\n', ''));
    expect(changes).toEqual([{ line: 8, from: 'human_readable_id', to: '(removed)', note: expect.stringContaining('the API assigns') }]);
    expect(migrateStudyText(out)).toEqual({ text: out, changes: [] });
  });

  it('gives a study that loads without any diagnostic', async () => {
    const file = path.join(fixtures, 'migrate/legacy-study.yaml');
    const before = await loadStudyText(read('migrate/legacy-study.yaml'), file, { env: {} });
    expect(new Set(before.diagnostics.map((d) => d.code))).toEqual(new Set(['SF3001', 'SF3002', 'SF3003']));
    const after = await loadStudyText(migrateStudyText(read('migrate/legacy-study.yaml')).text, file, { env: {} });
    expect(after.diagnostics).toEqual([]);
    const us = after.study!.study.target_groups.us;
    expect(us.profiles.map((p) => [p.name, p.object])).toEqual([
      ['gender', 'regular'],
      ['age', 'regular'],
      ['places', 'regular'],
      ['age_gender', 'blended'],
      ['gender_only', 'blended'],
    ]);
    expect(us.profiles[0].targets[1].quota).toEqual({ name: 'f', completes_goal_percentage: 50 });
    // Zip codes and free-text answers are open-ended conditions in the reference's shape; the group field is gone.
    expect(us.profiles[2].targets[0].conditions).toEqual([
      { object: 'open_ended', question_id: 45, allow_all_values: false, open_ended_values: ['10001', '10002'] },
      { object: 'open_ended', question_id: 9001, allow_all_values: false, open_ended_values: ['acme'] },
    ]);
    expect(after.study!.study.api_version).toBe('2025-12-18');
    expect(after.study!.study.project.project_customer_reference_number).toBe('PO-1');
  });

  it('is idempotent', () => {
    const once = migrateStudyText(read('migrate/legacy-study.yaml'));
    const twice = migrateStudyText(once.text);
    expect(twice).toEqual({ text: once.text, changes: [] });
  });

  it('leaves files without old names byte for byte unchanged', () => {
    for (const example of ['quickstart/study.yaml', 'multi-country-tracker/study.yaml', 'multi-country-tracker/shared.yaml']) {
      const text = readFileSync(fileURLToPath(new URL(`../../examples/${example}`, import.meta.url)), 'utf8');
      expect(migrateStudyText(text)).toEqual({ text, changes: [] });
    }
  });

  it('leaves text with YAML errors unchanged', () => {
    const text = 'format: studyflow/v1\nclient_cpi: [unclosed\n';
    expect(migrateStudyText(text)).toEqual({ text, changes: [] });
  });

  it('does not rename filling_goal outside a quota', () => {
    const text = 'target_groups:\n  us:\n    filling_goal: 100\n';
    expect(migrateStudyText(text).changes).toEqual([]);
  });

  it('leaves an old name alone when its new name already holds another value', () => {
    const text = 'quota:\n  name: q\n  completes_goal: 40\n  quota_nominal: 50\n';
    expect(migrateStudyText(text)).toEqual({ text, changes: [] });
  });

  it('turns a cost note written as an amount with its currency into money, and leaves other text for the user', async () => {
    const note = (value: string) => `target_groups:\n  us:\n    client_cost_per_interview_note: ${value} # agreed\n`;
    for (const [value, money] of [
      ['2.50 USD', '{ value: "2.50", currency_code: USD }'],
      ['"USD 12"', '{ value: "12", currency_code: USD }'],
      ["'3.125 eur'", '{ value: "3.125", currency_code: EUR }'],
    ]) {
      const { text, changes } = migrateStudyText(note(value));
      expect(text).toBe(note(money));
      expect(changes).toEqual([{ line: 3, from: `client_cost_per_interview_note: ${value.replace(/^["']|["']$/g, '')}`, to: money }]);
    }
    for (const value of ['ask finance', '2.50', '0 USD', 'USD 2 EUR', '{ value: "2.50", currency_code: USD }']) {
      expect(migrateStudyText(note(value))).toEqual({ text: note(value), changes: [] });
    }
    // What migrate leaves is reported where it stands, with what to write.
    const file = path.join(fixtures, 'invalid', 'client-note-text.yaml');
    const { diagnostics } = await loadStudyText(read('invalid/client-note-text.yaml'), file, { env: {} });
    expect(diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([
      ['SF3004', 18, '`client_cost_per_interview_note` is an amount of money in API version 2025-12-18 ({value, currency_code}), not text'],
    ]);
    expect(diagnostics[0].hint).toContain('currency_code: USD');
  });

  it.each(legacyFixtures)('fixes invalid/%s completely', async (file) => {
    const original = read(`invalid/${file}`);
    const { text, changes } = migrateStudyText(original);
    expect(changes.length).toBeGreaterThan(0);
    const { diagnostics } = await loadStudyText(text, path.join(fixtures, 'invalid', file), { env: {} });
    expect(diagnostics).toEqual([]);
    const untouched = original.split('\n').filter((line) => !changes.some((c) => line.includes(c.from)));
    for (const line of untouched.filter((l) => l.trim().startsWith('#') || /^\S/.test(l))) expect(text).toContain(line);
  });
});
