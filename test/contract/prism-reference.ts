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
//   examples say `has_more: false` (and a list whose cursor alone says "more" loses its `next_cursor`), one page.
// - A `oneOf` branch that is an object with no properties, no required fields and nothing else ("No profiling" in
//   ProfilingRequest: "can be set to null or omitted") matches every object, so no body can match exactly one
//   branch and every draft with profiling would be refused. In the copy that branch takes the empty object only.
// - A `oneOf` whose branches are objects with one optional property each, a different one per branch (a quota's
//   `completes_goal_percentage` or `completes_goal`): any object matches every branch, so none matches exactly one.
//   In the copy each branch requires its property, as its title says.
// - A 204 answer with content (`exclusion-groups/{id}/target-groups/add` documents a JSON `{}`): Prism sends the body
//   with the 204, which HTTP forbids, and the client's HTTP stack fails the exchange. In the copy a 204 has no content.
// - A 2xx example that its own schema refuses (e.g. `update_date: null` where the schema says string): Prism,
//   with --errors, answers 500 instead of it. Given a judge (`exampleProblems`), the copy leaves out the nulls the
//   schema refuses (as if the field were omitted); an example still refused after that is left out whole, and
//   Prism answers another example or one it builds from the schema.
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
  /** JSON pointers of the 204 answers whose content was left out. */
  noContent204: string[];
  /** JSON pointers of the list examples turned into one page (`has_more: false`). */
  onePageExamples: string[];
  /** JSON pointers of the `oneOf` branches that matched every object, now the empty object only or requiring their one property. */
  catchAllBranches: string[];
  /** The examples their own schema refuses: where, the first problem, and whether leaving out nulls fixed it. */
  droppedExamples: { pointer: string; problem: string; repaired: boolean }[];
  /**
   * JSON pointers of the `Content-Type` header parameters whose enum of bare media types now admits the media type's
   * parameters: a multipart body cannot be sent without its `boundary` (RFC 2046), so `multipart/form-data` alone,
   * as the document's enum reads, would refuse every real upload.
   */
  contentTypeParameters: string[];
}

export interface NormaliseOptions {
  /** Problems of an answer under the document (operation id, status, body); [] when it fits. */
  exampleProblems?: (operationId: string, status: number, example: unknown) => string[];
}

const isObject = (v: unknown): v is Json => Boolean(v) && typeof v === 'object' && !Array.isArray(v);
/** A schema that says `nullable: true` and nothing about its type. */
const typelessNullable = (v: unknown): v is Json => isObject(v) && v.nullable === true && v.type === undefined;
/** Keys that only annotate: a schema holding nothing else constrains nothing. */
const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

function normaliseSchemas(node: unknown, at: string, rewritten: string[], catchAll: string[], noContent?: string[]): unknown {
  if (Array.isArray(node)) return node.map((v, i) => normaliseSchemas(v, `${at}/${i}`, rewritten, catchAll, noContent));
  if (!isObject(node)) return node;
  const out: Json = {};
  if (noContent && at.endsWith('/responses/204') && node.content !== undefined) {
    const { content: _content, ...rest } = node;
    noContent.push(at);
    return rest;
  }
  for (const [k, v] of Object.entries(node)) {
    // Examples are data, not schemas: a key called `nullable` there is a value.
    out[k] = k === 'example' || k === 'examples' ? v : normaliseSchemas(v, `${at}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`, rewritten, catchAll, noContent);
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
  if (Array.isArray(out.oneOf)) {
    out.oneOf = (out.oneOf as unknown[]).map((branch, i) => {
      if (!isObject(branch) || branch.type !== 'object' || !isObject(branch.properties) || Object.keys(branch.properties).length > 0) return branch;
      if (Object.keys(branch).some((k) => !ANNOTATIONS.has(k) && !['type', 'properties', 'nullable'].includes(k))) return branch;
      catchAll.push(`${at}/oneOf/${i}`);
      return { ...branch, maxProperties: 0 };
    });
    const single = (b: unknown) => isObject(b) && b.type === 'object' && b.required === undefined && isObject(b.properties) && Object.keys(b.properties).length === 1;
    const branches = out.oneOf as unknown[];
    const names = branches.map((b) => (single(b) ? Object.keys((b as Json).properties as Json)[0] : undefined));
    if (branches.length > 1 && names.every((n) => n !== undefined) && new Set(names).size === names.length) {
      out.oneOf = branches.map((b, i) => {
        catchAll.push(`${at}/oneOf/${i}`);
        return { ...(b as Json), required: [names[i]] };
      });
    }
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
  } else if (inExample && out.has_more === undefined && typeof out.next_cursor === 'string' && Object.values(out).some(Array.isArray)) {
    // A list whose cursor alone says there is more: one page without it (the cursor is optional there).
    delete out.next_cursor;
    changed.push(at);
  }
  return out;
}

/**
 * The example without the nulls its schema refuses (each problem's instance path, read from the judge's
 * "<path> <message>", naming a null is left out), or undefined when that does not make it fit.
 */
function withoutRefusedNulls(example: unknown, problems: (value: unknown) => string[]): unknown {
  const copy = structuredClone(example);
  for (let i = 0; i < 20; i += 1) {
    const first = problems(copy)[0];
    if (first === undefined) return copy;
    const at = first.split(' ')[0];
    if (!at.startsWith('/')) return undefined;
    const keys = at.slice(1).split('/').map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = keys.pop() as string;
    const parent = keys.reduce<unknown>((node, k) => (isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[k] : undefined), copy);
    if (!isObject(parent) || parent[last] !== null) return undefined;
    delete parent[last];
  }
  return undefined;
}

const pointer = (...parts: string[]) => `#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

/** Leaves out the 2xx JSON examples of the document (as published) that `judge` finds problems in. */
function dropInvalidExamples(
  document: Json,
  normalised: { paths: Json; components: unknown },
  basePath: string,
  judge: NonNullable<NormaliseOptions['exampleProblems']>,
): { pointer: string; problem: string; repaired: boolean }[] {
  const dropped: { pointer: string; problem: string; repaired: boolean }[] = [];
  const derefIn = (root: unknown) => (node: unknown): unknown => {
    let current = node;
    while (isObject(current) && typeof current.$ref === 'string') current = current.$ref.slice(2).split('/').reduce((a: any, k: string) => a?.[k], root);
    return current;
  };
  const deref = derefIn(document);
  const derefCopy = derefIn({ components: normalised.components });
  for (const [p, item] of Object.entries((document.paths ?? {}) as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      if (!isObject(op) || typeof op.operationId !== 'string') continue;
      for (const [status, response] of Object.entries((op.responses ?? {}) as Json)) {
        if (!/^2\d\d$/.test(status)) continue;
        const content = (deref(response) as Json | undefined)?.content as Json | undefined;
        const json = content?.['application/json'] as Json | undefined;
        if (!json) continue;
        const named = isObject(json.examples) ? Object.entries(json.examples).map(([name, ex]) => [name, (deref(ex) as Json | undefined)?.value] as const) : [];
        const all = json.example !== undefined ? [['example', json.example] as const, ...named] : named;
        const bad = all
          .map(([name, value]) => [name, value, judge(op.operationId as string, Number(status), value)[0]] as const)
          .filter(([, , problem]) => problem !== undefined);
        if (bad.length === 0) continue;
        // The copy's response gets a content of its own (a $ref'd response may be shared).
        const target = ((normalised.paths[`${basePath}${p}`] as Json)[method] as Json).responses as Json;
        const copy = structuredClone(derefCopy(target[status])) as Json;
        const copyJson = (copy.content as Json)['application/json'] as Json;
        for (const [name, value, problem] of bad) {
          const repaired = withoutRefusedNulls(value, (v) => judge(op.operationId as string, Number(status), v));
          dropped.push({ pointer: pointer('paths', p, method, 'responses', status, 'content', 'application/json', ...(name === 'example' ? ['example'] : ['examples', name])), problem: problem as string, repaired: repaired !== undefined });
          if (name === 'example') {
            if (repaired !== undefined) copyJson.example = repaired;
            else delete copyJson.example;
          } else if (repaired !== undefined) (copyJson.examples as Json)[name] = { ...((copyJson.examples as Json)[name] as Json), value: repaired };
          else delete (copyJson.examples as Json)[name];
        }
        if (isObject(copyJson.examples) && Object.keys(copyJson.examples).length === 0) delete copyJson.examples;
        target[status] = copy;
      }
    }
  }
  return dropped;
}

export function normaliseReference(document: Json, options: NormaliseOptions = {}): NormalisedReference {
  const servers = Array.isArray(document.servers) ? (document.servers as Json[]) : [];
  const serverUrl = typeof servers[0]?.url === 'string' ? (servers[0].url as string) : '/';
  const basePath = new URL(serverUrl, 'http://localhost').pathname.replace(/\/$/, '');
  const rewritten: string[] = [];
  const catchAll: string[] = [];
  const noContent: string[] = [];
  const paths: Json = {};
  for (const [p, item] of Object.entries((document.paths ?? {}) as Json)) {
    paths[`${basePath}${p}`] = normaliseSchemas(item, `#/paths/${p.replaceAll('~', '~0').replaceAll('/', '~1')}`, rewritten, catchAll, noContent);
  }
  const { servers: _servers, paths: _paths, components, ...rest } = document;
  const normalisedComponents = normaliseSchemas(components, '#/components', rewritten, catchAll);
  const droppedExamples = options.exampleProblems ? dropInvalidExamples(document, { paths, components: normalisedComponents }, basePath, options.exampleProblems) : [];
  const onePage: string[] = [];
  const contentTypes: string[] = [];
  const normalised = admitMediaTypeParameters(onePageExamples({ ...rest, paths, components: normalisedComponents }, '#', onePage), '#', contentTypes) as Json;
  return {
    document: normalised, basePath, nullableRewritten: rewritten, noContent204: noContent, onePageExamples: onePage, catchAllBranches: catchAll, droppedExamples,
    contentTypeParameters: contentTypes,
  };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A `Content-Type` header parameter's enum of media types as a pattern that also admits `; name=value` parameters. */
function admitMediaTypeParameters(node: unknown, pointer: string, found: string[]): unknown {
  if (Array.isArray(node)) return node.map((v, i) => admitMediaTypeParameters(v, `${pointer}/${i}`, found));
  if (!isObject(node)) return node;
  const schema = node.schema;
  if (node.in === 'header' && String(node.name).toLowerCase() === 'content-type' && isObject(schema) && Array.isArray(schema.enum)) {
    const { enum: mediaTypes, ...restOfSchema } = schema;
    found.push(pointer);
    return { ...node, schema: { ...restOfSchema, pattern: `^(${(mediaTypes as string[]).map(escapeRegExp).join('|')})(\\s*;.*)?$` } };
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = admitMediaTypeParameters(v, `${pointer}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`, found);
  return out;
}

/** Reads the document, normalises it and writes the copy to a new temporary directory. */
export async function writeNormalisedReference(referencePath: string, options: NormaliseOptions = {}): Promise<NormalisedReference & { file: string; dir: string }> {
  const normalised = normaliseReference(parse(readFileSync(referencePath, 'utf8'), { maxAliasCount: -1 }) as Json, options);
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
