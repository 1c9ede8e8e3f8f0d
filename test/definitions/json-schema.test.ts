// The committed JSON Schemas are generated from the zod model and must stay in step with it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { schemaFileText, sharedJsonSchema, studyJsonSchema } from '../../definitions';

const root = new URL('../../', import.meta.url);
const read = (rel: string) => readFileSync(fileURLToPath(new URL(rel, root)), 'utf8');

describe('generated JSON Schema', () => {
  it.each([
    ['schema/study.schema.json', studyJsonSchema],
    ['schema/shared.schema.json', sharedJsonSchema],
  ] as const)('%s is in sync with the zod model (regenerate: node bin/run-ts.js scripts/generate-schema.ts)', (file, generate) => {
    expect(read(file)).toBe(schemaFileText(generate()));
  });

  it('is draft-07, with the root as a definition editors can show', () => {
    const schema = studyJsonSchema();
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.$ref).toBe('#/definitions/StudyFile');
    expect(Object.keys(schema.definitions as object)).toEqual(expect.arrayContaining(['TargetGroup', 'Profile', 'Condition', 'ActivityExclusionItem', 'LaunchRules', 'Timing']));
  });

  it('compiles with ajv and accepts the examples as an editor would', () => {
    const ajv = new Ajv({ strict: false, allErrors: true, formats: { 'date-time': true } });
    const validateStudy = ajv.compile(studyJsonSchema());
    const validateShared = ajv.compile(sharedJsonSchema());
    for (const file of ['quickstart/study.yaml', 'multi-country-tracker/study.yaml', 'recontact-wave/study.yaml', 'every-exclusion/study.yaml', 'closeout/study.yaml']) {
      expect(validateStudy(parse(read(`examples/${file}`))), `${file}: ${ajv.errorsText(validateStudy.errors)}`).toBe(true);
    }
    expect(validateShared(parse(read('examples/multi-country-tracker/shared.yaml')))).toBe(true);
  });

  it('rejects what the model rejects: unknown fields, bad enums, missing required fields', () => {
    const ajv = new Ajv({ strict: false, formats: { 'date-time': true } });
    const validate = ajv.compile(studyJsonSchema());
    const base = parse(read('examples/quickstart/study.yaml'));
    expect(validate(base)).toBe(true);
    expect(validate({ ...base, surprise: 1 })).toBe(false);
    expect(validate({ ...base, api_version: '2024-01-01' })).toBe(false);
    const { study: _study, ...withoutStudy } = base;
    expect(validate(withoutStudy)).toBe(false);
  });

  it('returns a fresh copy each call', () => {
    const a = studyJsonSchema();
    (a as Record<string, unknown>).title = 'changed';
    expect(studyJsonSchema().title).toBeUndefined();
  });
});
