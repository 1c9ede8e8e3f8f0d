// `studyflow migrate`'s rename of webhook event names to the connection profile's (shared/api-profile.ts):
// `com.svc.session.updated` <-> `session-updated`. Same-line edits of the event scalars, so comments and layout stay.
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { webhookEventFor, type ApiProfileName } from '../shared/api-profile';
import { keyText } from './source-map';

export interface EventRename {
  /** 1-based line of the event in the text. */
  line: number;
  from: string;
  to: string;
}

/** The text with every webhook event another profile names renamed to the profile's name (events without a counterpart stay). */
export function migrateWebhookEvents(text: string, profile: ApiProfileName): { text: string; changes: EventRename[] } {
  const lines = new LineCounter();
  let doc;
  try {
    doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, merge: true });
  } catch {
    return { text, changes: [] };
  }
  if (doc.errors.length > 0 || !isMap(doc.contents)) return { text, changes: [] };
  const webhooks = doc.contents.items.find((pair) => keyText(pair) === 'webhooks')?.value;
  if (!isSeq(webhooks)) return { text, changes: [] };
  const edits: { start: number; end: number; text: string; change: EventRename }[] = [];
  for (const hook of webhooks.items) {
    if (!isMap(hook)) continue;
    const events = hook.items.find((pair) => keyText(pair) === 'events')?.value;
    if (!isSeq(events)) continue;
    for (const event of events.items) {
      if (!isScalar(event) || typeof event.value !== 'string' || !event.range) continue;
      const to = webhookEventFor(profile, event.value);
      if (to === undefined || to === event.value) continue;
      const source = text.slice(event.range[0], event.range[1]);
      const quote = source[0] === '"' || source[0] === "'" ? source[0] : '';
      edits.push({ start: event.range[0], end: event.range[1], text: `${quote}${to}${quote}`, change: { line: lines.linePos(event.range[0]).line, from: event.value, to } });
    }
  }
  let out = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return { text: out, changes: edits.map((e) => e.change) };
}
