// The examples as a buyer on the real exchange (the `cint` profile) would have them. Two examples use what only
// the spec's dialect has: the spec's session event and webhook `compression` (multi-country-tracker), and
// activity-exclusion statuses other than completes (every-exclusion). Under `cint` validate refuses those with a
// located SF4304 / SF4305, so the buyer runs `studyflow migrate --profile cint` (which renames the event) and drops
// what the real exchange cannot express. This does the same to a copy of each example's folder (its ID lists come
// along) and says what it dropped, so the contract tests plan and apply every example under `cint`.
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isMap, isSeq, parseDocument, type YAMLMap } from 'yaml';
import { migrateStudyText } from '../../definitions/migrate-study-text';

export interface CintExample {
  /** The copy's study file. */
  file: string;
  /** What was renamed or dropped, one line each (empty when the example needed nothing). */
  edits: string[];
}

const isDefaultStatuses = (v: unknown) => Array.isArray(v) && v.length === 1 && v[0] === 'Complete';

/** A study file's text as a cint buyer has it: events migrated, spec-only fields dropped; each edit named. */
export function cintStudyText(text: string): { text: string; edits: string[] } {
  const migrated = migrateStudyText(text, { apiProfile: 'cint' });
  const edits = migrated.changes.map((c) => `line ${c.line}: ${c.from} -> ${c.to}`);
  const doc = parseDocument(migrated.text);
  const webhooks = doc.get('webhooks');
  if (isSeq(webhooks)) {
    for (const hook of webhooks.items) {
      if (isMap(hook) && hook.has('compression')) {
        hook.delete('compression');
        edits.push(`webhook ${String(hook.get('url'))}: compression dropped (spec only)`);
      }
    }
  }
  const targetGroups = doc.get('target_groups');
  if (isMap(targetGroups)) {
    for (const pair of targetGroups.items) {
      const activity = (pair.value as YAMLMap | null)?.getIn?.(['exclusions', 'activity', 'items']);
      if (!isSeq(activity)) continue;
      activity.items = activity.items.filter((item) => {
        if (!isMap(item) || !item.has('respondent_statuses')) return true;
        const statuses = (item.get('respondent_statuses', true) as { toJSON(): unknown }).toJSON();
        if (isDefaultStatuses(statuses)) {
          item.delete('respondent_statuses');
          return true;
        }
        // The reference's items exclude completes: an item that asked for completes and more keeps its completes.
        if (Array.isArray(statuses) && statuses.includes('Complete')) {
          item.delete('respondent_statuses');
          edits.push(`${String(pair.key)}: activity exclusion of ${JSON.stringify(statuses)} narrowed to completes (the reference excludes completes only)`);
          return true;
        }
        edits.push(`${String(pair.key)}: activity exclusion of ${JSON.stringify(statuses)} dropped (the reference excludes completes only)`);
        return false;
      });
    }
  }
  return { text: edits.length ? doc.toString() : text, edits };
}

/** Copies the example's folder into `dir` and rewrites its study file for the `cint` profile. */
export async function cintCopyOfExample(studyFile: string, dir: string): Promise<CintExample> {
  const target = path.join(dir, path.basename(path.dirname(studyFile)));
  await cp(path.dirname(studyFile), target, { recursive: true });
  const file = path.join(target, path.basename(studyFile));
  const { text, edits } = cintStudyText(await readFile(studyFile, 'utf8'));
  await writeFile(file, text);
  return { file, edits };
}
