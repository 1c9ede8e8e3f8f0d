// Property paths of each definition of a generated JSON Schema, for the documentation test:
// `a.b`, `list[]`, `map.<name>`; a $ref ends a path (the referenced definition has its own section).
type Schema = Record<string, any>;

function refOf(schema: Schema): string | undefined {
  if (typeof schema.$ref === 'string') return schema.$ref;
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1 && typeof schema.allOf[0].$ref === 'string') return schema.allOf[0].$ref;
  return undefined;
}

function collect(schema: Schema, prefix: string, out: string[]): void {
  if (!schema || typeof schema !== 'object' || refOf(schema)) return;
  for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const p = prefix ? `${prefix}.${name}` : name;
    out.push(p);
    collect(sub, p, out);
  }
  if (schema.items && typeof schema.items === 'object') collect(schema.items, `${prefix}[]`, out);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') collect(schema.additionalProperties, `${prefix}.<name>`, out);
  for (const key of ['anyOf', 'oneOf'] as const) for (const branch of (schema[key] ?? []) as Schema[]) collect(branch, prefix, out);
}

/** Definition name -> the property paths documented in its section. */
export function propertyPathsByDefinition(schema: Schema): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, definition] of Object.entries((schema.definitions ?? {}) as Record<string, Schema>)) {
    const paths: string[] = [];
    collect(definition, '', paths);
    out.set(name, [...new Set(paths)]);
  }
  return out;
}
