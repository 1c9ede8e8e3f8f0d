// The validator's verdict per operation, from the exchanges with Prism: was every request the client sent
// accepted, was a bad body refused (validation really on for that operation), and did every answer that is
// valid under the document parse with the client's wire schema, in static and in dynamic mode. Printed by
// the contract test and written to STUDYFLOW_PRISM_VERDICTS (a file path) when set.
import { writeFileSync } from 'node:fs';

export interface OperationVerdict {
  /** The document's operation id, or `METHOD template` when the document has no such method there. */
  operation: string;
  method: string;
  requests: number;
  /** Requests Prism refused, with its first reason each. */
  refused: string[];
  /** A body that breaks the document's rules was refused ('n/a' for an operation without a body). */
  badBodyRefused?: boolean | 'n/a';
  /** Answers valid under the document, and the problems of those the wire schema could not parse, per mode. */
  parsed: Record<'static' | 'dynamic', { valid: number; invalidUnderDocument: number; failures: string[] }>;
}

export function emptyVerdict(operation: string, method: string): OperationVerdict {
  return {
    operation,
    method,
    requests: 0,
    refused: [],
    parsed: { static: { valid: 0, invalidUnderDocument: 0, failures: [] }, dynamic: { valid: 0, invalidUnderDocument: 0, failures: [] } },
  };
}

function parsedCell(p: OperationVerdict['parsed']['static']): string {
  if (p.failures.length) return `FAILS ${p.failures.length}/${p.valid}: ${p.failures[0]}`;
  if (p.valid === 0) return p.invalidUnderDocument ? `- (${p.invalidUnderDocument} invalid under the document)` : '-';
  return `yes (${p.valid})${p.invalidUnderDocument ? `, ${p.invalidUnderDocument} invalid under the document` : ''}`;
}

const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', ' ').slice(0, 220);

/** The table as Markdown, one row per operation, sorted by operation. */
export function verdictTable(verdicts: Iterable<OperationVerdict>, header: string): string {
  const rows = [...verdicts].sort((a, b) => a.operation.localeCompare(b.operation));
  const lines = [
    header,
    '',
    '| operation | method | requests | accepted | bad body refused | answer parsed (static) | answer parsed (dynamic) |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((v) =>
      `| ${cell(v.operation)} | ${v.method} | ${v.requests} | ${v.refused.length === 0 ? 'yes' : cell(`REFUSED ${v.refused.length}: ${v.refused[0]}`)} | ${
        v.badBodyRefused === undefined ? '-' : v.badBodyRefused === 'n/a' ? 'n/a' : v.badBodyRefused ? 'yes' : 'NO'
      } | ${cell(parsedCell(v.parsed.static))} | ${cell(parsedCell(v.parsed.dynamic))} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/** Prints the table and writes it where STUDYFLOW_PRISM_VERDICTS says. */
export function reportVerdicts(table: string, env: NodeJS.ProcessEnv = process.env): void {
  process.stdout.write(`\n${table}\n`);
  if (env.STUDYFLOW_PRISM_VERDICTS) writeFileSync(env.STUDYFLOW_PRISM_VERDICTS, table);
}
