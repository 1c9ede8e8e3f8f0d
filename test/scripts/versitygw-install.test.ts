// The versitygw install through its real code path (dev/versitygw.mjs), into an empty cache root as on
// a fresh machine, with a stand-in `go` that does what `go install` does with GOBIN (and records what it
// was asked to build). `npm test` runs the real build (scripts/install-versitygw.mjs) before the tests.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const installScript = fileURLToPath(new URL('../../scripts/install-versitygw.mjs', import.meta.url));
const dirs: string[] = [];
const temporaryDir = (prefix: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterEach(() => dirs.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** A `go` that answers `version` and, for `install`, records its argument and writes $GOBIN/versitygw. */
function fakeGo(): { go: string; asked: string } {
  const dir = temporaryDir('studyflow-fake-go-');
  const go = path.join(dir, 'go');
  const asked = path.join(dir, 'asked');
  fs.writeFileSync(go, [
    '#!/bin/sh',
    'if [ "$1" = version ]; then echo "go version go0.0 fake"; exit 0; fi',
    `if [ "$1" = install ]; then echo "$2" > '${asked}'; printf "#!/bin/sh\\necho versitygw fake\\n" > "$GOBIN/versitygw" && chmod +x "$GOBIN/versitygw"; exit $?; fi`,
    'exit 2',
  ].join('\n'), { mode: 0o755 });
  return { go, asked };
}

function install(env: Record<string, string>) {
  const base = { ...process.env };
  delete base.VERSITYGW_PATH;
  delete base.STUDYFLOW_CACHE_DIR;
  return spawnSync(process.execPath, [installScript, '--print-path'], { env: { ...base, ...env }, encoding: 'utf8' });
}

describe('installing versitygw (the local S3 server) on a fresh machine', () => {
  it('go-installs the pinned module into a cache root that does not exist yet, then reuses it', () => {
    const xdg = path.join(temporaryDir('studyflow-xdg-'), 'not-yet');
    const { go, asked } = fakeGo();
    const first = install({ XDG_CACHE_HOME: xdg, GO_BINARY: go });
    expect(first.status, first.stderr).toBe(0);
    const bin = first.stdout.trim();
    expect(bin).toBe(path.join(xdg, 'studyflow', 'versitygw', 'v1.8.0', 'versitygw'));
    expect(fs.readFileSync(asked, 'utf8').trim()).toBe('github.com/versity/versitygw/cmd/versitygw@v1.8.0');
    expect(fs.readdirSync(path.join(xdg, 'studyflow', 'versitygw'))).toEqual(['v1.8.0']);
    const second = install({ XDG_CACHE_HOME: xdg, GO_BINARY: '/nonexistent/go', PATH: '/nonexistent' });
    expect(second.status).toBe(0);
    expect(second.stdout.trim()).toBe(bin);
  });

  it('uses VERSITYGW_PATH instead, and names it when it is not an executable', () => {
    const { go } = fakeGo();
    const own = path.join(temporaryDir('studyflow-own-'), 'versitygw');
    fs.writeFileSync(own, '#!/bin/sh\n', { mode: 0o755 });
    const xdg = temporaryDir('studyflow-xdg-');
    expect(install({ XDG_CACHE_HOME: xdg, GO_BINARY: go, VERSITYGW_PATH: own }).stdout.trim()).toBe(own);
    expect(fs.existsSync(path.join(xdg, 'studyflow'))).toBe(false);
    const missing = install({ XDG_CACHE_HOME: xdg, VERSITYGW_PATH: '/nonexistent/versitygw' });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('VERSITYGW_PATH=/nonexistent/versitygw is not an executable file');
  });
});
