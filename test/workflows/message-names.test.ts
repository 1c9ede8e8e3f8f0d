// The workflows' message definitions (issue 35): the public contract (workflows/messages.ts: what the study client, the
// CLI and the webhook receiver send and read) and the parent <-> child protocol (workflows/child-protocol.ts: what only
// the study workflow and its target-group workflows exchange). Each export is named after what it registers
// (`defineUpdate('resumeGuarded')` is `resumeGuardedUpdate`), no registered name is defined twice, and the registered
// names are pinned: running workflows and the committed replay histories (test/replay) depend on them.
import { describe, expect, it } from 'vitest';
import * as childProtocol from '../../workflows/child-protocol';
import * as messages from '../../workflows/messages';

type Kind = 'signal' | 'update' | 'query';
interface Definition {
  module: string;
  exportName: string;
  kind: Kind;
  name: string;
}

const SUFFIX: Record<Kind, string> = { signal: 'Signal', update: 'Update', query: 'Query' };

function definitionsOf(module: string, exports: Record<string, unknown>): Definition[] {
  return Object.entries(exports).flatMap(([exportName, value]) => {
    if (typeof value !== 'object' || value === null) return [];
    const { type, name } = value as { type?: unknown; name?: unknown };
    if ((type !== 'signal' && type !== 'update' && type !== 'query') || typeof name !== 'string') return [];
    return [{ module, exportName, kind: type, name }];
  });
}

const definitions = [...definitionsOf('messages', messages), ...definitionsOf('child-protocol', childProtocol)];
const registered = (module: string) =>
  definitions
    .filter((d) => d.module === module)
    .map((d) => `${d.kind} ${d.name}`)
    .sort();

describe('workflow message definitions', () => {
  it('finds the definitions of both modules', () => {
    expect(definitionsOf('messages', messages).length).toBeGreaterThan(5);
    expect(definitionsOf('child-protocol', childProtocol).length).toBeGreaterThan(5);
  });

  it('names each export after what it registers: <registered name> + Signal, Update or Query', () => {
    for (const d of definitions) expect(d.exportName, `${d.module}: ${d.kind} '${d.name}'`).toBe(`${d.name}${SUFFIX[d.kind]}`);
  });

  it('defines no registered name twice across the two modules', () => {
    const byKindAndName = new Map<string, string[]>();
    const byName = new Map<string, string[]>();
    for (const d of definitions) {
      byKindAndName.set(`${d.kind} ${d.name}`, [...(byKindAndName.get(`${d.kind} ${d.name}`) ?? []), `${d.module}.${d.exportName}`]);
      byName.set(d.name, [...(byName.get(d.name) ?? []), `${d.module}.${d.exportName}`]);
    }
    for (const [key, where] of byKindAndName) expect(where, key).toHaveLength(1);
    // One name is registered twice, as two kinds on two workflows, since before the split (it cannot change: the
    // histories hold it): the study's `targetGroupReport` signal, which a child sends, and the target group's
    // `targetGroupReport` query, which an operator asks. No other name may be shared, whatever its kind.
    const shared = Object.fromEntries([...byName].filter(([, where]) => where.length > 1).map(([name, where]) => [name, [...where].sort()]));
    expect(shared).toEqual({ targetGroupReport: ['child-protocol.targetGroupReportSignal', 'messages.targetGroupReportQuery'] });
  });

  it('keeps every registered name (running workflows and the replay histories hold them)', () => {
    expect(registered('messages')).toEqual(
      [
        'update apply',
        'update awaitRevision',
        'update approve',
        'update fieldingControl',
        'update resumeGuarded',
        'update softLaunchDecision',
        'query status',
        'query report',
        'update targetGroupFieldingControl',
        'update targetGroupEventOnce',
        'query targetGroupStatus',
        'query targetGroupReport',
      ].sort(),
    );
    expect(registered('child-protocol')).toEqual(
      [
        'signal targetGroupProgress',
        'signal targetGroupRevision',
        'signal targetGroupApprove',
        'signal targetGroupControl',
        'signal targetGroupGuardResume',
        'signal targetGroupSoftLaunch',
        'signal targetGroupReport',
        'signal upstreamCompletes',
        'signal targetGroupFigures',
      ].sort(),
    );
  });
});
