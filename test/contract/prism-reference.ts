// The published reference, normalised for a mock server that validates requests (Stoplight Prism). Two things
// in the document keep a validator from checking what the real service checks, and both are fixed here, in a
// copy written at test time (nothing from the document is committed):
// - Its paths are relative to the server URL's path (`https://api.cint.com/v1`): a mock serves them as written,
//   so the copy puts that path in front of every path (`/accounts` -> `/v1/accounts`) and drops `servers`.
// - `nullable: true` on a schema without `type` (about 89 places, the draft create's among them). OpenAPI 3.0.3
//   gives it no meaning; ajv refuses to compile it ("nullable" cannot be used without "type"), and Prism then
//   accepts ANY body for that operation without a word. The copy says what the authors meant: the schema, or
//   null (`anyOf: [schema, {type: null}]`); an `allOf` member that only says `nullable` makes its parent nullable.
// - A static mock answers every page of a list with the same example, and five list examples say `has_more: true`:
//   no client that follows cursors to the end (and refuses a cursor that repeats) could finish. In the copy those
//   examples say `has_more: false`, one page; nothing else in any example changes.
// Pure: the document in, the normalised document and what was changed out.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';

type Json = Record<string, unknown>;

export interface NormalisedReference {
  document: Json;
  /** The path every operation path was prefixed with (from the first server URL), e.g. `/v1`. */
  basePath: string;
  /** JSON pointers of the schemas whose type-less `nullable` was rewritten. */
  nullableRewritten: string[];
  /** JSON pointers of the list examples turned into one page (`has_more: false`). */
  onePageExamples: string[];
}

const isObject = (v: unknown): v is Json => Boolean(v) && typeof v === 'object' && !Array.isArray(v);
/** A schema that says `nullable: true` and nothing about its type. */
const typelessNullable = (v: unknown): v is Json => isObject(v) && v.nullable === true && v.type === undefined;
/** Keys that only annotate: a schema holding nothing else constrains nothing. */
const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

function normaliseSchemas(node: unknown, at: string, rewritten: string[]): unknown {
  if (Array.isArray(node)) return node.map((v, i) => normaliseSchemas(v, `${at}/${i}`, rewritten));
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    // Examples are data, not schemas: a key called `nullable` there is a value.
    out[k] = k === 'example' || k === 'examples' ? v : normaliseSchemas(v, `${at}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`, rewritten);
  }
  let nullable = false;
  if (Array.isArray(out.allOf)) {
    const members: unknown[] = [];
    (out.allOf as unknown[]).forEach((member, i) => {
      if (!typelessNullable(member)) return void members.push(member);
      rewritten.push(`${at}/allOf/${i}`);
      nullable = true;
      const { nullable: _dropped, ...rest } = member;
      if (Object.keys(rest).some((k) => !ANNOTATIONS.has(k))) members.push(rest);
    });
    out.allOf = members;
  }
  if (typelessNullable(out)) {
    rewritten.push(at);
    nullable = true;
    delete out.nullable;
  }
  return nullable ? { anyOf: [out, { type: 'null' }] } : out;
}

/** Every example that says `has_more: true` says false (a copy; pointers of those changed are collected). */
function onePageExamples(node: unknown, at: string, changed: string[], inExample = false): unknown {
  if (Array.isArray(node)) return node.map((v, i) => onePageExamples(v, `${at}/${i}`, changed, inExample));
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = onePageExamples(v, `${at}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`, changed, inExample || k === 'example' || k === 'examples');
  if (inExample && out.has_more === true) {
    out.has_more = false;
    changed.push(at);
  }
  return out;
}

export function normaliseReference(document: Json): NormalisedReference {
  const servers = Array.isArray(document.servers) ? (document.servers as Json[]) : [];
  const serverUrl = typeof servers[0]?.url === 'string' ? (servers[0].url as string) : '/';
  const basePath = new URL(serverUrl, 'http://localhost').pathname.replace(/\/$/, '');
  const rewritten: string[] = [];
  const paths: Json = {};
  for (const [p, item] of Object.entries((document.paths ?? {}) as Json)) {
    paths[`${basePath}${p}`] = normaliseSchemas(item, `#/paths/${p.replaceAll('~', '~0').replaceAll('/', '~1')}`, rewritten);
  }
  const { servers: _servers, paths: _paths, components, ...rest } = document;
  const onePage: string[] = [];
  const normalised = onePageExamples({ ...rest, paths, components: normaliseSchemas(components, '#/components', rewritten) }, '#', onePage) as Json;
  return { document: normalised, basePath, nullableRewritten: rewritten, onePageExamples: onePage };
}

/** Reads the document, normalises it and writes the copy to a new temporary directory. */
export async function writeNormalisedReference(referencePath: string): Promise<NormalisedReference & { file: string; dir: string }> {
  const normalised = normaliseReference(parse(readFileSync(referencePath, 'utf8'), { maxAliasCount: -1 }) as Json);
  const dir = await mkdtemp(path.join(tmpdir(), 'studyflow-prism-'));
  const file = path.join(dir, 'reference-normalised.yml');
  // No anchors and aliases in the copy: every shared node is written out where it is used.
  await writeFile(file, stringify(normalised.document, { aliasDuplicateObjects: false, lineWidth: 0 }));
  return { ...normalised, file, dir };
}

/**
 * The document's operation for a request: its operation id and path template, by method and path (the most
 * literal template wins). `operationId` is undefined when the path is the document's but the method is not.
 */
export function documentOperationMatcher(document: Json): (method: string, requestPath: string) => { operationId?: string; template: string } | undefined {
  const routes = Object.entries((document.paths ?? {}) as Json).map(([template, item]) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}|\{[^}]+\}/g, '[^/]+')}$`),
    literal: template.replace(/\{[^}]+\}/g, '').length,
    item: item as Json,
  }));
  return (method, requestPath) => {
    const found = routes.filter((r) => r.pattern.test(requestPath)).sort((a, b) => b.literal - a.literal)[0];
    if (!found) return undefined;
    const op = found.item[method.toLowerCase()] as Json | undefined;
    return { template: found.template, ...(typeof op?.operationId === 'string' ? { operationId: op.operationId } : {}) };
  };
}
