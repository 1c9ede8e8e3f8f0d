import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic, type Diagnostic } from '../../definitions';

const base: Diagnostic = {
  code: 'SF4002',
  severity: 'error',
  file: 'studies/acme.yaml',
  line: 12,
  column: 3,
  endLine: 12,
  endColumn: 9,
  path: ['target_groups', 'us', 'live_url'],
  message: 'target group `us` launches automatically but has no live_url',
  hint: 'add it',
};

describe('formatDiagnostic', () => {
  it('human: file:line:col: severity code message (hint)', () => {
    expect(formatDiagnostic(base, 'human')).toBe('studies/acme.yaml:12:3: error SF4002 target group `us` launches automatically but has no live_url (add it)');
    const { hint: _hint, ...noHint } = base;
    expect(formatDiagnostic({ ...noHint, severity: 'warning' }, 'human')).toBe('studies/acme.yaml:12:3: warning SF4002 target group `us` launches automatically but has no live_url');
  });

  it('github: a workflow command with the range, the code as title and the hint on a second line', () => {
    expect(formatDiagnostic(base, 'github')).toBe(
      '::error file=studies/acme.yaml,line=12,col=3,endLine=12,endColumn=9,title=SF4002 live_url required to launch automatically::target group `us` launches automatically but has no live_url%0Aadd it',
    );
    expect(formatDiagnostic({ ...base, severity: 'warning' }, 'github')).toMatch(/^::warning /);
  });

  it('github: escapes %, newlines, and : and , in properties', () => {
    const line = formatDiagnostic({ ...base, file: 'a,b:c.yaml', message: '100% sure\r\nreally', hint: undefined }, 'github');
    expect(line).toContain('file=a%2Cb%3Ac.yaml,');
    expect(line.endsWith('::100%25 sure%0D%0Areally')).toBe(true);
    expect(line.split('\n')).toHaveLength(1);
  });

  it('prints absolute paths under the working directory relative to it', () => {
    const file = path.join(process.cwd(), 'examples', 'x.yaml');
    expect(formatDiagnostic({ ...base, file }, 'human').startsWith('examples/x.yaml:12:3:')).toBe(true);
    expect(formatDiagnostic({ ...base, file: '/elsewhere/x.yaml' }, 'human').startsWith('/elsewhere/x.yaml:12:3:')).toBe(true);
  });
});
