// The temporal CLI install through its real code path (dev/temporal-cli.mjs), into an empty cache root
// as on a fresh machine. `go` is a stand-in script that does what `go install` does with GOBIN (writes
// the binary there), so the test takes a second, not the minutes of the real build; CI's own run of
// `npm test` with an empty XDG_CACHE_HOME does the real build.
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const installScript = fileURLToPath(new URL('../../scripts/install-temporal.mjs', import.meta.url));

const temporaryDirs: string[] = [];
function temporaryDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  temporaryDirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temporaryDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A `go` that answers `version` and, for `install`, writes an executable `temporal` into $GOBIN. */
function fakeGo(): string {
  const dir = temporaryDir('studyflow-fake-go-');
  const go = path.join(dir, 'go');
  fs.writeFileSync(
    go,
    [
      '#!/bin/sh',
      'if [ "$1" = version ]; then echo "go version go0.0 fake"; exit 0; fi',
      'if [ "$1" = install ]; then printf "#!/bin/sh\\necho temporal fake\\n" > "$GOBIN/temporal" && chmod +x "$GOBIN/temporal"; exit $?; fi',
      'exit 2',
    ].join('\n'),
    { mode: 0o755 },
  );
  return go;
}

function install(env: Record<string, string>) {
  const base = { ...process.env };
  delete base.TEMPORAL_CLI_PATH;
  delete base.STUDYFLOW_CACHE_DIR;
  return spawnSync(process.execPath, [installScript, '--print-path'], { env: { ...base, ...env }, encoding: 'utf8' });
}

describe('installing the temporal CLI on a fresh machine', () => {
  it('builds into an XDG cache root that does not exist yet and reuses the build afterwards', () => {
    const xdg = path.join(temporaryDir('studyflow-xdg-'), 'not-yet');
    const go = fakeGo();
    const first = install({ XDG_CACHE_HOME: xdg, GO_BINARY: go });
    expect(first.stderr).not.toContain('ENOENT');
    expect(first.status).toBe(0);
    const bin = first.stdout.trim();
    expect(bin.startsWith(path.join(xdg, 'studyflow', 'temporal'))).toBe(true);
    expect(spawnSync(bin, [], { encoding: 'utf8' }).stdout.trim()).toBe('temporal fake');
    // Nothing but the versioned binary is left: the staging directory is gone.
    expect(fs.readdirSync(path.join(xdg, 'studyflow', 'temporal'))).toEqual([path.basename(path.dirname(bin))]);

    // The second run finds the cached build and does not call go at all.
    const second = install({ XDG_CACHE_HOME: xdg, GO_BINARY: '/nonexistent/go', PATH: '/nonexistent' });
    expect(second.status).toBe(0);
    expect(second.stdout.trim()).toBe(bin);
  });

  it('honours STUDYFLOW_CACHE_DIR the same way', () => {
    const root = path.join(temporaryDir('studyflow-cache-'), 'a', 'b');
    const result = install({ STUDYFLOW_CACHE_DIR: root, GO_BINARY: fakeGo() });
    expect(result.status).toBe(0);
    expect(result.stdout.trim().startsWith(path.join(root, 'temporal'))).toBe(true);
  });

  it('says so, with the exit code, when the build fails', () => {
    const dir = temporaryDir('studyflow-bad-go-');
    const go = path.join(dir, 'go');
    fs.writeFileSync(go, '#!/bin/sh\nif [ "$1" = version ]; then exit 0; fi\nexit 3\n', { mode: 0o755 });
    const xdg = path.join(temporaryDir('studyflow-xdg-'), 'fresh');
    const result = install({ XDG_CACHE_HOME: xdg, GO_BINARY: go });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('go install of the temporal CLI failed (exit 3)');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
