import { z } from 'zod';
import { SharedFileSchema, StudyFileSchema } from './study-schema';

function generate(schema: z.ZodType): Record<string, unknown> {
  // io 'input': the schema describes the file as written, so fields with defaults are optional.
  return z.toJSONSchema(schema, { target: 'draft-7', io: 'input', unrepresentable: 'throw' }) as Record<string, unknown>;
}

let studySchemaCache: Record<string, unknown> | undefined;
let sharedSchemaCache: Record<string, unknown> | undefined;

/** JSON Schema (draft-07) of a study file, generated from the zod model. Committed as schema/study.schema.json. */
export function studyJsonSchema(): Record<string, unknown> {
  studySchemaCache ??= generate(StudyFileSchema);
  return structuredClone(studySchemaCache);
}

/** JSON Schema (draft-07) of a directory's shared.yaml. Committed as schema/shared.schema.json. */
export function sharedJsonSchema(): Record<string, unknown> {
  sharedSchemaCache ??= generate(SharedFileSchema);
  return structuredClone(sharedSchemaCache);
}

/** The committed text of a generated schema: two-space JSON and a final newline. */
export function schemaFileText(schema: object): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
