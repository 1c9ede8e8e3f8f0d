// The `notify:` block (study file and shared.yaml): webhook targets that get studyflow's events. A target's
// URL is always a `${NAME}` reference: incoming-webhook URLs carry their token in the path, so a URL written
// in the file is refused (SF4401), even a local one (put it in a variable too: one path for all). The
// reference is NOT resolved at load (env-references skips these paths): the study keeps the NAME, workflows
// carry the NAME, and the worker reads the variable when it sends. So `validate` and `plan` run without it.
import { z } from 'zod';
import { ENV_REFERENCE_ONLY } from './credentials';
import type { DocPath } from './doc-path';
import type { FileReporter } from './reporter';
import { envReferenceName, NOTIFY_EVENTS, type NotifyTarget } from '../shared/notify-events';

export const NotifyTargetSchema = z
  .strictObject({
    url: z.string().min(1).meta({
      description: 'A ${NAME} reference to the environment variable (on the worker) that holds the incoming-webhook URL. A URL written here is refused.',
    }),
    events: z
      .array(z.enum(NOTIFY_EVENTS))
      .min(1)
      .refine((a) => new Set(a).size === a.length)
      .meta({ uniqueItems: true, description: 'Events sent to this target (default: all of them).' })
      .optional(),
  })
  .meta({ id: 'NotifyTarget', description: 'A webhook (Slack-compatible incoming webhook) that gets studyflow events.' });

export const NotifyBlockSchema = z
  .array(NotifyTargetSchema)
  .meta({ description: 'Where studyflow sends its events (gate blocked, guard tripped, launch failed, drift, completed, budget reached).' });

export type NotifyTargetEntry = z.infer<typeof NotifyTargetSchema>;

/** Whether `${…}` at this path is left as written at load: a notify target's URL (the worker resolves it). */
export function isNotifyUrlPath(at: DocPath): boolean {
  return at.length === 3 && at[0] === 'notify' && typeof at[1] === 'number' && at[2] === 'url';
}

/** A notify target as the study keeps it, with where it was declared (for SF4403). */
export interface DeclaredNotifyTarget extends NotifyTarget {
  file: string;
  path: DocPath;
}

/**
 * Checks `notify:` of a checked file (structure already checked) and returns its targets that hold a reference.
 * `earlier`: targets of the directory's shared.yaml, which a study may not list again.
 */
export function checkNotifyTargets(data: Record<string, unknown>, r: FileReporter, earlier: readonly DeclaredNotifyTarget[] = []): DeclaredNotifyTarget[] {
  const raw = data.notify;
  if (!Array.isArray(raw)) return [];
  const out: DeclaredNotifyTarget[] = [];
  const seen = new Map(earlier.map((t) => [t.envName, t]));
  raw.forEach((entry: unknown, index) => {
    const parsed = NotifyTargetSchema.safeParse(entry);
    if (!parsed.success) return;
    const at: DocPath = ['notify', index, 'url'];
    const url = parsed.data.url.trim();
    const envName = ENV_REFERENCE_ONLY.test(url) ? envReferenceName(url) : undefined;
    if (!envName) {
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
        r.report('SF4401', at, 'a notification URL is written in the file; incoming-webhook URLs carry their token, so they come from the environment', {
          hint: 'write url: ${SLACK_WEBHOOK_URL} and export SLACK_WEBHOOK_URL where the worker runs (a local receiver too: SLACK_WEBHOOK_URL=http://127.0.0.1:9000/hook)',
        });
      } else {
        r.report('SF4402', at, `notification url \`${url}\` is not a \${NAME} reference`, {
          hint: 'write the name of the environment variable that holds the URL, as ${NAME}, and nothing else',
        });
      }
      return;
    }
    const first = seen.get(envName);
    if (first) {
      const where = first.file === r.file ? `notify[${String(first.path[1])}]` : first.file;
      r.report('SF4403', at, `notification target \${${envName}} is listed twice (also ${where})`, { hint: 'list each target once, with all of its events' });
      return;
    }
    const target: DeclaredNotifyTarget = { envName, events: parsed.data.events ?? [...NOTIFY_EVENTS], file: r.file, path: ['notify', index] };
    seen.set(envName, target);
    out.push(target);
  });
  return out;
}

/** The targets a study's workflows get: the shared file's, then the study's own (names and events only). */
export function notifyTargetsOf(...lists: readonly (readonly DeclaredNotifyTarget[])[]): NotifyTarget[] {
  return lists.flat().map(({ envName, events }) => ({ envName, events: [...events] }));
}
