// The golden helper itself: narrow normalization, and a comparison that fails on any difference.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliTranscript, expectGolden, GOLDEN_DIR, literal, normalize, updatingGolden } from './golden';

describe('golden helper', () => {
  it('replaces every occurrence of a literal, and only that', () => {
    const text = 'file /tmp/a.b/c.yaml and /tmp/a.b/c.yaml, not /tmp/aXb/c.yaml';
    expect(normalize(text, [literal('/tmp/a.b', '<tmp>')])).toBe('file <tmp>/c.yaml and <tmp>/c.yaml, not /tmp/aXb/c.yaml');
  });

  it('refuses a pattern without the g flag, which would replace only the first match', () => {
    expect(() => normalize('a a', [{ pattern: /a/, with: 'b' }])).toThrow(/g flag/);
  });

  it('labels exit code, stdout and stderr in a transcript', () => {
    expect(cliTranscript({ code: 2, stdout: '', stderr: 'error: x\n' })).toBe('exit code: 2\n--- stdout ---\n--- stderr ---\nerror: x\n');
  });

  it.skipIf(updatingGolden)('fails on a difference and on a missing golden file', () => {
    const name = 'usage/unknown-command';
    const text = fs.readFileSync(path.join(GOLDEN_DIR, `${name}.txt`), 'utf8');
    expect(() => expectGolden(name, text)).not.toThrow();
    expect(() => expectGolden(name, `${text} `)).toThrow(/differs/);
    expect(() => expectGolden('no-such-golden', text)).toThrow(/missing.*UPDATE_GOLDEN=1/);
    expect(() => expectGolden('../escape', text)).toThrow(/kebab-case/);
  });
});
