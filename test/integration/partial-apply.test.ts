// Partial apply on the embedded stack (real Temporal, the sandbox), through the CLI: `apply --target-group us`
// creates and launches us only (the exchange holds no uk), the next `plan --detailed-exitcode` shows uk pending
// (exit 2), a full apply applies uk, and applying the file again writes nothing. An unknown key is a usage error
// before anything is written.
import { describe, expect, it } from 'vitest';
import { useTestStack } from '../fixtures/stack';
import { quickLaunchFields } from '../helpers/study-yaml';
import { writeStudy } from './harness';

const ACCOUNT = '1001';

function studyYaml(study: string): string {
  return `format: studyflow/v1
study: ${study}
account: "${ACCOUNT}"
business_unit: "2001"
project:
  name: Partial ${study}
defaults:
${quickLaunchFields('  ', 40)}
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/${study}-us?rid=[%RID%]
  uk:
    locale: en_GB
    live_url: https://survey.example.com/s/${study}-uk?rid=[%RID%]
`;
}

describe('partial apply (--target-group, --except)', () => {
  const t = useTestStack('partial-apply');
  const remoteOf = (study: string, key: string) => Object.values(t.stack.sandbox.state().target_groups).find((g) => g.target_group_customer_reference_number === `${study}_${key}`);
  const writesSince = (from: number) => t.stack.sandbox.requests().slice(from).filter((r) => r.method !== 'GET' && !r.path.startsWith('/_sandbox'));

  it('refuses an unknown key with UnknownTargetGroupError, exit 2, nothing asked or written', async () => {
    const study = 'partial-unknown';
    const file = writeStudy(t.dir, `${study}.yaml`, studyYaml(study));
    const before = t.stack.sandbox.requests().length;
    for (const command of ['apply', 'plan']) {
      const result = await t.cli([command, file, '--target-group', 'us', '--except', 'fr']);
      expect(result.code, result.stdout + result.stderr).toBe(2);
      expect(result.stderr).toContain('error: unknown target group "fr" in --target-group/--except (the studies declare: uk, us)');
    }
    expect(t.stack.sandbox.requests().slice(before)).toEqual([]);
  });

  it('applies us only, shows uk pending, then a full apply applies uk and a re-apply writes 0', async () => {
    const study = 'partial-us';
    const file = writeStudy(t.dir, `${study}.yaml`, studyYaml(study));

    const planned = await t.cli(['plan', file, '--target-group', 'us', '--json']);
    expect(planned.code, planned.stderr).toBe(0);
    const actions = (JSON.parse(planned.stdout) as { studies: { actions: { kind: string; resource: string; key: string; reason: string }[] }[] }).studies[0].actions;
    expect(actions.find((a) => a.resource === 'target_group' && a.key === 'uk')).toMatchObject({ kind: 'none', reason: expect.stringMatching(/^left out of this apply \(--target-group us\): /) });
    expect(actions.find((a) => a.resource === 'target_group' && a.key === 'us')?.kind).toBe('create');
    expect(actions.find((a) => a.resource === 'project')).toMatchObject({ kind: 'create', reason: expect.stringMatching(/\(applied with us\)$/) });

    const partial = await t.cli(['apply', file, '--target-group', 'us', '--timeout', '120']);
    expect(partial.code, partial.stdout + partial.stderr).toBe(0);
    expect(remoteOf(study, 'us')?.status).toBe('live');
    expect(remoteOf(study, 'uk')).toBeUndefined();
    expect(partial.stdout).toMatch(/uk target_group: pending: create target_group: left out of this apply \(--target-group us\)/);
    const status = await t.status(ACCOUNT, study);
    expect(status.unapplied?.filter((u) => u.targetGroup === 'uk').every((u) => u.reason === 'left_out')).toBe(true);
    expect(status.targetGroups.uk).toBeUndefined();
    const shown = await t.cli(['status', file]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('uk target_group: pending: create target_group: left out of this apply (--target-group us)');

    const pending = await t.cli(['plan', file, '--detailed-exitcode', '--json']);
    expect(pending.code, pending.stdout + pending.stderr).toBe(2);
    const next = (JSON.parse(pending.stdout) as { studies: { actions: { kind: string; resource: string; key: string }[] }[] }).studies[0].actions;
    expect(next.find((a) => a.resource === 'target_group' && a.key === 'uk')?.kind).toBe('create');
    expect(next.filter((a) => a.key === 'us' && !['none'].includes(a.kind))).toEqual([]);

    const full = await t.cli(['apply', file, '--timeout', '120']);
    expect(full.code, full.stdout + full.stderr).toBe(0);
    expect(remoteOf(study, 'uk')?.status).toBe('live');
    expect((await t.status(ACCOUNT, study)).unapplied ?? []).toEqual([]);

    const before = t.stack.sandbox.requests().length;
    const again = await t.cli(['apply', file, '--timeout', '120']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(writesSince(before)).toEqual([]);
    const settled = await t.cli(['plan', file, '--detailed-exitcode']);
    expect(settled.code, settled.stdout + settled.stderr).toBe(0);
  });
});
