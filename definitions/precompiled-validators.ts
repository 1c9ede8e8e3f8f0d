// The structure check's ajv validators, compiled ahead of time. In the TypeScript sources there are none, and
// the structure check compiles them from the committed JSON Schemas on first use (a few hundred milliseconds).
// `npm run build` replaces this module in the compiled CLI with ajv's standalone code for both schemas
// (scripts/build.mjs), so `studyflow validate` starts checking at once.
import type { ValidateFunction } from 'ajv';
import type { SchemaKind } from './structure-check';

export const PRECOMPILED_VALIDATORS: Partial<Record<SchemaKind, ValidateFunction>> = {};
