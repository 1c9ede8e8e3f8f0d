// The Temporal UI link that apply, status and report print: STUDYFLOW_TEMPORAL_UI_URL when set; else the UI of
// the `studyflow dev` that runs from the working directory for the same Temporal server (.studyflow/dev-stack.json);
// else none, rather than a link to a port where no UI may be.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { devStackFor, writeDevStackFile } from '../../cli/dev-stack-file';
import { temporalUiLink } from '../../cli/status-view';

const WF = 'study/1001/acme';
const PAGE = '/namespaces/default/workflows/study%2F1001%2Facme';

describe('temporalUiLink', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-ui-link-'));
  });
  afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }));
  const dev = (info: { temporal_address: string; ui_url?: string; pid: number }) => writeDevStackFile(path.join(cwd, '.studyflow'), info);

  it('prints no link when nothing says where the UI is (no port is guessed)', () => {
    expect(temporalUiLink({}, { address: '127.0.0.1:7233', namespace: 'default' }, WF, cwd)).toBeUndefined();
  });

  it('uses the UI of `studyflow dev` running from this directory, on the port it really uses', () => {
    dev({ temporal_address: '127.0.0.1:17233', ui_url: 'http://127.0.0.1:18233', pid: process.pid });
    expect(temporalUiLink({}, { address: '127.0.0.1:17233', namespace: 'default' }, WF, cwd)).toBe(`http://127.0.0.1:18233${PAGE}`);
    // localhost names the same server.
    expect(temporalUiLink({}, { address: 'localhost:17233', namespace: 'default' }, WF, cwd)).toBe(`http://127.0.0.1:18233${PAGE}`);
  });

  it('ignores the dev stack for another Temporal server, a headless one, or one that no longer runs', () => {
    dev({ temporal_address: '127.0.0.1:17233', ui_url: 'http://127.0.0.1:18233', pid: process.pid });
    expect(temporalUiLink({}, { address: 'temporal.prod.example:7233', namespace: 'default' }, WF, cwd)).toBeUndefined();

    dev({ temporal_address: '127.0.0.1:17233', pid: process.pid });
    expect(temporalUiLink({}, { address: '127.0.0.1:17233', namespace: 'default' }, WF, cwd)).toBeUndefined();

    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    dev({ temporal_address: '127.0.0.1:17233', ui_url: 'http://127.0.0.1:18233', pid: Number(gone.stdout) });
    expect(devStackFor(cwd, '127.0.0.1:17233')).toBeUndefined();
    expect(temporalUiLink({}, { address: '127.0.0.1:17233', namespace: 'default' }, WF, cwd)).toBeUndefined();
  });

  it('ignores a file it cannot read as a dev stack', () => {
    fs.mkdirSync(path.join(cwd, '.studyflow'));
    fs.writeFileSync(path.join(cwd, '.studyflow', 'dev-stack.json'), '{"temporal_address": 7233');
    expect(temporalUiLink({}, { address: '127.0.0.1:7233', namespace: 'default' }, WF, cwd)).toBeUndefined();
  });

  it('takes STUDYFLOW_TEMPORAL_UI_URL first, for any cluster, and encodes namespace and workflow id', () => {
    dev({ temporal_address: '127.0.0.1:17233', ui_url: 'http://127.0.0.1:18233', pid: process.pid });
    const env = { STUDYFLOW_TEMPORAL_UI_URL: 'https://temporal.example.com/' };
    expect(temporalUiLink(env, { address: '127.0.0.1:17233', namespace: 'default' }, WF, cwd)).toBe(`https://temporal.example.com${PAGE}`);
    expect(temporalUiLink(env, { address: 'x:7233', namespace: 'team a' }, WF, cwd)).toBe('https://temporal.example.com/namespaces/team%20a/workflows/study%2F1001%2Facme');
  });
});
