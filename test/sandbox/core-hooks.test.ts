// Unit tests of the hooks offered to part 2: event bus, ticks, state slices, job kinds.
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { EventBus } from '../../sandbox/core/event-bus';
import { P, draftBody } from './sandbox-test-client';

const { sb, api } = useTestSandbox({ resetBeforeEach: true });

describe('core › event bus', () => {
  it('delivers after emit returns, contains listener errors, and supports unsubscribe', async () => {
    const bus = new EventBus();
    const got: unknown[] = [];
    bus.on('custom', () => {
      throw new Error('listener bug');
    });
    const off = bus.on('custom', (p) => void got.push(p));
    bus.emit('custom', { n: 1 });
    expect(got).toEqual([]);
    await bus.idle();
    expect(got).toEqual([{ n: 1 }]);
    off();
    bus.emit('custom', { n: 2 });
    await bus.idle();
    expect(got).toEqual([{ n: 1 }]);
  });

  it('emits nothing for a rejected request', async () => {
    const project = await api.createProject();
    const names: string[] = [];
    const off = sb.events.on('*', (e) => void names.push((e as { name: string }).name));
    const res = await api.req('POST', `${P()}/projects/${project.id}/target-groups`, { body: draftBody({ filling_goal: 0 }) });
    expect(res.status).toBe(400);
    await sb.events.idle();
    off();
    expect(names).toEqual([]);
  });
});

describe('core › ticks, slices and job kinds', () => {
  it('runs registered ticks on runTicks() with the sandbox clock, and stops after unregister', async () => {
    const calls: number[] = [];
    const unregister = sb.services.ticks.register('test-tick', 60_000, (now) => void calls.push(now));
    await sb.runTicks();
    expect(calls).toHaveLength(1);
    expect(Math.abs(calls[0] - Date.now())).toBeLessThan(5_000);
    unregister();
    await sb.runTicks();
    expect(calls).toHaveLength(1);
  });

  it('keeps named state slices in the store (visible in /_sandbox/state, cleared by reset)', async () => {
    const slice = sb.services.store.slice('webhooks', () => ({ items: [] as string[] }));
    slice.items.push('w1');
    expect(sb.services.store.slice('webhooks', () => ({ items: [] as string[] })).items).toEqual(['w1']);
    expect((await api.state()).records.slices.webhooks).toEqual({ items: ['w1'] });
    sb.reset();
    expect((await api.state()).records.slices).toEqual({});
  });

  it('refuses a job kind or tick name defined twice', () => {
    expect(() => sb.services.jobs.defineKind('exclusion_upload', () => undefined)).toThrow(/already defined/);
    const off = sb.services.ticks.register('dup', 1000, () => undefined);
    expect(() => sb.services.ticks.register('dup', 1000, () => undefined)).toThrow(/already registered/);
    off();
  });
});
