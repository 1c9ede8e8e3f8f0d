import { LineCounter, parseDocument, type Document } from 'yaml';
import { makeDiagnostic, START_OF_FILE, type Diagnostic } from './diagnostic';
import { isPlainObject } from './doc-path';
import { SourceMap } from './source-map';

/** A parsed YAML file: the document (for ranges and text edits), its source map and its plain data. */
export interface ParsedYaml {
  file: string;
  doc: Document;
  map: SourceMap;
  data: Record<string, unknown>;
}

const MESSAGES: Record<string, string> = {
  DUPLICATE_KEY: 'duplicate key: a key may appear only once in a mapping',
  MULTIPLE_DOCS: 'a study file holds one YAML document; remove the extra `---`',
};

/** Parses YAML text; every syntax problem becomes a located diagnostic instead of an exception. */
export function parseYamlText(text: string, file: string): { parsed?: ParsedYaml; diagnostics: Diagnostic[] } {
  const lineCounter = new LineCounter();
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter, merge: true, prettyErrors: false, uniqueKeys: true });
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return { diagnostics: [makeDiagnostic('SF1002', file, START_OF_FILE, [], `YAML cannot be read: ${reason}`)] };
  }
  const map = new SourceMap(doc, lineCounter);
  const diagnostics: Diagnostic[] = [];
  for (const err of doc.errors) {
    const code = err.code === 'DUPLICATE_KEY' ? 'SF1003' : err.code === 'MULTIPLE_DOCS' ? 'SF1005' : 'SF1002';
    const message = MESSAGES[err.code] ?? `YAML syntax error: ${err.message.split('\n')[0]}`;
    diagnostics.push(makeDiagnostic(code, file, map.rangeOfOffsets(err.pos[0], err.pos[1]), [], message));
  }
  for (const warning of doc.warnings) {
    diagnostics.push(
      makeDiagnostic('SF1006', file, map.rangeOfOffsets(warning.pos[0], warning.pos[1]), [], `YAML warning: ${warning.message.split('\n')[0]}`),
    );
  }
  if (diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    diagnostics.push(makeDiagnostic('SF1002', file, map.locate([]), [], `YAML cannot be loaded: ${reason}`));
    return { diagnostics };
  }
  if (!isPlainObject(data)) {
    const what = data === null || data === undefined ? 'empty' : Array.isArray(data) ? 'a list' : 'a single value';
    diagnostics.push(
      makeDiagnostic('SF1004', file, map.locate([]), [], `the file is ${what}; it must be a mapping that starts with \`format: studyflow/v1\``),
    );
    return { diagnostics };
  }
  return { parsed: { file, doc, map, data }, diagnostics };
}
