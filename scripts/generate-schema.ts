// Regenerates the committed JSON Schemas from the zod model:
//   node bin/run-ts.js scripts/generate-schema.ts
// A test fails when the committed copies are out of step with the model.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaFileText, sharedJsonSchema, studyJsonSchema } from '../definitions/json-schema';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outputs: [string, object][] = [
  ['schema/study.schema.json', studyJsonSchema()],
  ['schema/shared.schema.json', sharedJsonSchema()],
];
for (const [file, schema] of outputs) {
  writeFileSync(path.join(root, file), schemaFileText(schema));
  console.log(`wrote ${file}`);
}
