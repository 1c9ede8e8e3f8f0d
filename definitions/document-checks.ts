// The checks every studyflow YAML file goes through before its own rules: syntax, old names,
// written credentials, ${ENV} references and the JSON Schema structure.
import type { Diagnostic } from './diagnostic';
import { formatPath, isWithin, pathKey, valueAt, type DocPath } from './doc-path';
import { findWrittenCredentials } from './credentials';
import { resolveEnvReferences } from './env-references';
import { isNotifyUrlPath } from './notify-targets';
import { findLegacyNames, legacyMessage, MIGRATE_HINT, MIGRATE_REMOVE_HINT, moneyHint, OPEN_ENDED_VALUES } from './legacy-names';
import { findNonFiniteNumbers, isNonFiniteNumber } from './non-finite-numbers';
import { FileReporter } from './reporter';
import { checkStructure, type SchemaKind, type StructureIssue } from './structure-check';
import { parseYamlText, type ParsedYaml } from './yaml-source';

/** Codes after which the typed model of a part cannot be trusted, so its semantic rules are skipped. */
const STRUCTURAL = /^SF[23]\d{3}$|^SF7001$/;

export interface CheckedDocument {
  parsed: ParsedYaml;
  /** The data with `${ENV}` references resolved. */
  data: Record<string, unknown>;
  reporter: FileReporter;
  /** Whether a structural error (schema, old name, written credential) lies at or inside this path. */
  hasErrorWithin(docPath: DocPath): boolean;
}

/** Runs the common checks; without `checked` the file could not be parsed at all. */
export function checkDocument(
  text: string,
  file: string,
  kind: SchemaKind,
  env: Record<string, string | undefined>,
): { checked?: CheckedDocument; diagnostics: Diagnostic[] } {
  const { parsed, diagnostics } = parseYamlText(text, file);
  if (!parsed) return { diagnostics };
  const r = new FileReporter(file, parsed.map, diagnostics);
  const suppressAny = new Set<string>();
  const suppressRequired = new Set<string>();

  for (const name of findLegacyNames(parsed.doc)) {
    if (name.kind === 'removed') {
      r.report('SF3003', name.path, legacyMessage(name), { target: 'key', hint: MIGRATE_REMOVE_HINT });
    } else if (name.kind === 'money') {
      r.report('SF3004', name.path, legacyMessage(name), { hint: moneyHint(name) });
    } else if (name.kind === 'field') {
      r.report('SF3001', name.path, legacyMessage(name), { target: 'key', hint: MIGRATE_HINT });
      suppressRequired.add(pathKey([...name.parentPath, name.to]));
      if (name.to === OPEN_ENDED_VALUES) suppressRequired.add(pathKey([...name.parentPath, 'allow_all_values']));
    } else {
      r.report('SF3002', name.path, legacyMessage(name), { hint: MIGRATE_HINT });
    }
    suppressAny.add(pathKey(name.path));
  }

  for (const number of findNonFiniteNumbers(parsed.doc, text)) {
    r.report('SF2006', number.path, `\`${formatPath(number.path)}\` is not a finite number: ${number.message}`, {
      hint: 'no field takes infinity or NaN, and JSON cannot carry them to the API: write a finite number, or quote the value if it is text',
    });
    suppressAny.add(pathKey(number.path));
  }

  for (const at of findWrittenCredentials(parsed.data)) {
    r.report('SF7001', at, `\`${String(at[at.length - 1])}\` looks like a credential; credentials never go in a study file`, {
      hint: 'write a reference such as ${STUDYFLOW_CLIENT_SECRET}: it is read from the environment at load and never printed',
    });
    suppressAny.add(pathKey(at));
  }

  const resolved = resolveEnvReferences(parsed.data, env, isNotifyUrlPath);
  for (const problem of resolved.problems) {
    if (problem.kind === 'unset') {
      r.report('SF7002', problem.path, `environment variable ${problem.name} is not set`, { hint: `export ${problem.name} before running studyflow` });
    } else {
      r.report('SF7003', problem.path, `malformed environment reference \`${problem.name}\``, {
        hint: 'write ${NAME} with letters, digits and _ (not starting with a digit), or $${ for a literal ${',
      });
    }
    suppressAny.add(pathKey(problem.path));
  }

  // A non-finite number reached through an alias is reported where it is written, not again at each use.
  const keep = (issue: StructureIssue) =>
    !suppressAny.has(pathKey(issue.path)) &&
    !(issue.keyword === 'required' && suppressRequired.has(pathKey(issue.path))) &&
    !isNonFiniteNumber(valueAt(resolved.data, issue.path));
  for (const issue of checkStructure(kind, resolved.data, resolved.fromEnv).filter(keep)) {
    r.report(issue.code, issue.path, issue.message, { hint: issue.hint, at: issue.at, target: issue.target });
  }

  const data = resolved.data as Record<string, unknown>;
  const hasErrorWithin = (docPath: DocPath) => r.diagnostics.some((d) => STRUCTURAL.test(d.code) && d.severity === 'error' && isWithin(d.path, docPath));
  return { checked: { parsed, data, reporter: r, hasErrorWithin }, diagnostics: r.diagnostics };
}
