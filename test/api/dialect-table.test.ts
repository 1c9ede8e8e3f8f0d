// The deviation table (shared/api-dialect.ts) and its copy in docs/api-conventions.md stay equal, and the
// profiles' header and event names come from it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONNECTION_PROFILES, createApiConfig, loadApiConfig } from '../../api/http/api-config';
import { DEVIATIONS, speaksSpec, withGoalFieldOut } from '../../api/http/dialect';
import { API_PROFILES, webhookEventFor } from '../../shared/api-profile';

const DOC = readFileSync(path.resolve(import.meta.dirname, '../../docs/api-conventions.md'), 'utf8');

/** The rows of the doc's deviation table: `| name | where | spec | reference | profiles |`. */
function docRows(): { name: string; where: string; spec: string; reference: string; profiles: string[] }[] {
  const section = DOC.slice(DOC.indexOf('## Where the spec differs from the reference'));
  const table = section.slice(section.indexOf('| deviation |'), section.indexOf('\n\n', section.indexOf('| deviation |')));
  return table
    .split('\n')
    .slice(2)
    .map((line) => {
      const cells = line.split(' | ').map((c) => c.replace(/^\| |\s*\|$/g, '').trim());
      return { name: cells[0].replace(/`/g, ''), where: cells[1], spec: cells[2], reference: cells[3], profiles: cells[4].split(', ').map((p) => p.replace(/`/g, '')) };
    });
}

describe('the deviation table', () => {
  it('docs/api-conventions.md shows exactly the code\'s table, row for row', () => {
    expect(docRows()).toEqual(DEVIATIONS.map((d) => ({ name: d.name, where: d.where, spec: d.spec, reference: d.reference, profiles: [...d.profiles] })));
  });

  it('sandbox speaks every deviation, cint none (it speaks the reference exactly)', () => {
    for (const d of DEVIATIONS) {
      expect(speaksSpec('sandbox', d.name)).toBe(true);
      expect(speaksSpec('cint', d.name)).toBe(false);
    }
    expect(() => speaksSpec('cint', 'no_such' as never)).toThrow(/no deviation/);
  });

  it('the profiles\' headers and events come from it; the config carries the profile', () => {
    expect(CONNECTION_PROFILES.sandbox).toMatchObject({ versionHeader: 'Svc-API-Version', signatureHeader: 'Svc-Signature', sessionEvent: 'com.svc.session.updated' });
    expect(CONNECTION_PROFILES.cint).toMatchObject({ versionHeader: 'Cint-API-Version', signatureHeader: 'Cint-Signature', sessionEvent: 'session-updated' });
    const env = { STUDYFLOW_API_BASE_URL: 'http://a.test', STUDYFLOW_AUTH_URL: 'http://b.test', STUDYFLOW_AUDIENCE: 'x', STUDYFLOW_CLIENT_ID: 'id', STUDYFLOW_CLIENT_SECRET: 's' };
    expect(loadApiConfig(env).profile).toBe('sandbox');
    expect(loadApiConfig({ ...env, STUDYFLOW_API_PROFILE: 'cint' })).toMatchObject({ profile: 'cint', versionHeader: 'Cint-API-Version' });
    const cint = createApiConfig({ baseUrl: 'http://a.test', authUrl: 'http://b.test', audience: 'x', clientId: 'id', clientSecret: 's', profile: 'cint' });
    expect(cint.versionHeader).toBe('Cint-API-Version');
    expect(JSON.parse(JSON.stringify(cint))).toMatchObject({ profile: 'cint', clientSecret: '[redacted]' });
    expect(() => createApiConfig({ baseUrl: 'http://a.test', authUrl: 'http://b.test', audience: 'x', clientId: 'id', clientSecret: 's', profile: 'prod' as never })).toThrow(/profile: must be one of sandbox, cint/);
  });

  it('renames the goal for cint only, leaving the input alone', () => {
    const body = { locale: 'eng_us', filling_goal: 10 };
    expect(withGoalFieldOut('sandbox', body)).toEqual(body);
    expect(withGoalFieldOut('cint', body)).toEqual({ locale: 'eng_us', completes_goal: 10 });
    expect(body).toEqual({ locale: 'eng_us', filling_goal: 10 });
  });

  it('maps the session event between the profiles; an event without a counterpart has none', () => {
    expect(webhookEventFor('cint', 'com.svc.session.updated')).toBe('session-updated');
    expect(webhookEventFor('sandbox', 'session-updated')).toBe('com.svc.session.updated');
    expect(webhookEventFor('cint', 'target-group-updated')).toBe('target-group-updated');
    expect(webhookEventFor('sandbox', 'quota-fill-registered')).toBeUndefined();
    expect(API_PROFILES).toEqual(['sandbox', 'cint']);
  });
});
