// The CSV files of the reports (the reference's generate_report types), pure over the simulated sessions: each
// file has a header row, one line per record, CRLF line ends. The reference names the types and their levels but
// not the files' columns; the columns are the sandbox's (docs/sandbox.md).

import { csvLine, reconciliationDeadlineMs } from './reconciliation';
import { moneyFromMinorUnits, toMinorUnits } from './money';
import type { SessionRecord } from './session-record';
import { summarizePerformance } from './target-group-performance';

export const REPORT_TYPES = ['completes', 'reconciliations-status', 'reconciliation-eligible-rids', 'sample-bought', 'respondent-analysis', 'term-details'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];
export type ReportLevel = 'account' | 'business_unit' | 'project' | 'target_group';

/** The levels each report type supports, and whether more than one id may be given (the reference's table). */
export const REPORT_LEVELS: Readonly<Record<ReportType, Partial<Record<ReportLevel, 'one' | 'many'>>>> = {
  completes: { account: 'one', business_unit: 'many', project: 'many', target_group: 'many' },
  'reconciliation-eligible-rids': { project: 'one', target_group: 'many' },
  'reconciliations-status': { account: 'one', project: 'many', target_group: 'many' },
  'respondent-analysis': { project: 'one', target_group: 'many' },
  'sample-bought': { account: 'one', business_unit: 'many', project: 'many', target_group: 'many' },
  'term-details': { target_group: 'one' },
};

/** A target group in a report's scope, with its sessions. */
export interface ReportGroup {
  id: string;
  project_id: string;
  name: string;
  sessions: readonly SessionRecord[];
}

/** A reconciliation request's counts for one target group (routes/reconciliations.ts). */
export interface ReconciliationStatusRow {
  request_id: string;
  name: string;
  submission_type: string;
  status: string;
  submitted_at: string;
  target_group_id: string;
  project_id: string;
  submitted: number;
  expired: number;
  invalid: number;
  positive_reversed: number;
  negative_reversed: number;
}

export interface ReportInput {
  type: ReportType;
  groups: readonly ReportGroup[];
  reconciliations: readonly ReconciliationStatusRow[];
  /** Simulated time of generation (the reconciliation window is judged at it). */
  nowMs: number;
  /** `[from, to)` in ms over the records' dates, or null for everything. */
  range: [number, number] | null;
}

const inRange = (iso: string, range: [number, number] | null) => range === null || (Date.parse(iso) >= range[0] && Date.parse(iso) < range[1]);
const file = (header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number | null | undefined>>) => [header, ...rows].map((row) => `${csvLine(row)}\r\n`).join('');

/** The report's CSV text. */
export function reportFile(input: ReportInput): string {
  const { groups, range } = input;
  const sessions = (status: string) => groups.flatMap((g) => g.sessions.filter((s) => s.status === status && inRange(s.respondent_update_date, range)).map((s) => ({ g, s })));
  switch (input.type) {
    case 'completes':
      return file(
        ['rid', 'project_id', 'target_group_id', 'supplier_id', 'respondent_id', 'entry_date', 'completed_at', 'cost_per_interview', 'currency_code'],
        sessions('Complete').map(({ s }) => [s.session_id, s.project_id, s.target_group_id, s.supplier_id, s.respondent_id, s.entry_date, s.respondent_update_date, s.cost_per_interview?.value, s.cost_per_interview?.currency_code]),
      );
    case 'reconciliation-eligible-rids':
      return file(
        ['rid', 'project_id', 'target_group_id', 'target_group_name', 'completed_at', 'reconcile_until'],
        sessions('Complete')
          .filter(({ s }) => reconciliationDeadlineMs(Date.parse(s.respondent_update_date)) > input.nowMs)
          .map(({ g, s }) => [s.session_id, g.project_id, g.id, g.name, s.respondent_update_date, new Date(reconciliationDeadlineMs(Date.parse(s.respondent_update_date)) - 1).toISOString()]),
      );
    case 'term-details':
      return file(
        ['rid', 'project_id', 'target_group_id', 'supplier_id', 'entry_date', 'terminated_at'],
        sessions('Terminate').map(({ s }) => [s.session_id, s.project_id, s.target_group_id, s.supplier_id, s.entry_date, s.respondent_update_date]),
      );
    case 'sample-bought':
      return file(
        ['project_id', 'target_group_id', 'target_group_name', 'completes', 'cost', 'currency_code'],
        groups.map((g) => {
          const completes = g.sessions.filter((s) => s.status === 'Complete' && inRange(s.respondent_update_date, range));
          const minor = completes.reduce((n, s) => n + (s.cost_per_interview ? toMinorUnits(Number(s.cost_per_interview.value)) : 0), 0);
          const cost = moneyFromMinorUnits(minor);
          return [g.project_id, g.id, g.name, completes.length, cost.value, cost.currency_code];
        }),
      );
    case 'respondent-analysis':
      return file(
        ['project_id', 'target_group_id', 'status', 'label', 'description', 'count'],
        groups.flatMap((g) => summarizePerformance(g.sessions.filter((s) => inRange(s.entry_date, range)), '2025-12-18').respondent_analysis.live.map((r) => [g.project_id, g.id, r.status, r.label, r.description, r.count])),
      );
    case 'reconciliations-status':
      return file(
        ['request_id', 'name', 'submission_type', 'status', 'submitted_at', 'target_group_id', 'project_id', 'submitted', 'expired', 'invalid', 'positive_reversed', 'negative_reversed'],
        input.reconciliations
          .filter((r) => inRange(r.submitted_at, range))
          .map((r) => [r.request_id, r.name, r.submission_type, r.status, r.submitted_at, r.target_group_id, r.project_id, r.submitted, r.expired, r.invalid, r.positive_reversed, r.negative_reversed]),
      );
  }
}
