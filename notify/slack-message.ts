// The JSON a Slack-compatible incoming webhook accepts for each event: `text` (the notification and the
// fallback every client shows) and `blocks` (a header, a mrkdwn section with the figures, a context line).
// Only the event's own fields go in: study and target-group names, figures, reasons. No URL, no token,
// no respondent id (events carry none: shared/notify-events.ts).
import type { NotificationEvent, NotifyEventKind } from '../shared/notify-events';

export interface SlackText {
  type: 'mrkdwn' | 'plain_text';
  text: string;
}

export type SlackBlock =
  | { type: 'header'; text: SlackText & { type: 'plain_text' } }
  | { type: 'section'; text: SlackText & { type: 'mrkdwn' } }
  | { type: 'context'; elements: (SlackText & { type: 'mrkdwn' })[] };

export interface SlackMessage {
  text: string;
  blocks: SlackBlock[];
}

/** Slack's limits: a header's text, a section's text. */
export const HEADER_MAX = 150;
export const SECTION_MAX = 3000;

const TITLES: Record<NotifyEventKind, string> = {
  gate_blocked: 'Launch gate blocked',
  guard_tripped: 'Guard tripped',
  launch_failed: 'Launch failed',
  drift_found: 'Drift found',
  target_group_completed: 'Target group completed',
  budget_reached: 'Budget reached: target groups paused',
  closeout_deadline: 'Close-out deadline: reversals not applied',
  soft_launch_decided: 'Soft launch decided',
};

/** mrkdwn control characters escaped as Slack asks: &, < and >. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const money = (m: { amount: number; currency: string }) => `${m.amount.toFixed(2)} ${m.currency}`;

/** The event's figures as `label: value` lines (plain text, escaped when rendered). */
function details(event: NotificationEvent): [string, string][] {
  switch (event.kind) {
    case 'gate_blocked':
      return [['Gate', event.gate], ['Reason', event.reason]];
    case 'guard_tripped':
      return [['Guard', event.guard], ['Reading', event.reading], ['Threshold', event.threshold]];
    case 'launch_failed':
      return [['Reason', event.reason]];
    case 'drift_found':
      return [['Changed outside the file', event.fields.join(', ') || '(no field named)']];
    case 'target_group_completed':
      return [['Completes', event.goal === undefined ? String(event.completes) : `${event.completes} of ${event.goal}`]];
    case 'budget_reached':
      return [['Spent', money(event.spent)], ['Budget', money(event.budget)]];
    case 'closeout_deadline':
      return [['Window closes', `${event.closesAt} (${event.daysLeft} day(s) left)`], ['RIDs to reverse', String(event.toReverse)], ['Close-out', event.phase.replace(/_/g, ' ')]];
    case 'soft_launch_decided':
      return [['Outcome', event.outcome], ['Action', event.action], ['Completes', String(event.completes)], ...event.evidence.map((line): [string, string] => ['Evidence', line])];
  }
}

/** Where the event happened, as one line: `study` or `study / target group`. */
function subject(event: NotificationEvent): string {
  return event.targetGroup ? `${event.studyId} / ${event.targetGroup}` : event.studyId;
}

export function slackMessage(event: NotificationEvent): SlackMessage {
  const title =
    event.kind === 'guard_tripped' && event.action === 'pause'
      ? `${TITLES.guard_tripped}: target group paused`
      : event.kind === 'soft_launch_decided'
        ? `${TITLES.soft_launch_decided}: ${event.outcome}`
        : TITLES[event.kind];
  const lines = details(event);
  const where = subject(event);
  const section = [`*${escapeMrkdwn(where)}*`, ...lines.map(([label, value]) => `*${escapeMrkdwn(label)}:* ${escapeMrkdwn(value)}`)].join('\n');
  return {
    text: clip(`${title}: ${where}${lines.length ? ` (${lines.map(([l, v]) => `${l.toLowerCase()} ${v}`).join('; ')})` : ''}`, SECTION_MAX),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: clip(title, HEADER_MAX) } },
      { type: 'section', text: { type: 'mrkdwn', text: clip(section, SECTION_MAX) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(`studyflow · ${event.kind} · ${event.at}`) }] },
    ],
  };
}
