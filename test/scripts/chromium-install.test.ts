// The headless Chromium install through its real code path (scripts/install-chromium.mjs): the browser that
// the npm package @sparticuz/chromium ships, unpacked into an empty cache root as on a fresh machine, then
// launched by playwright-core on a page of its own. And the one helper that anything driving a browser calls
// (chromiumExecutablePath): the launcher's path, or an error that names the one command to run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';

const scripts = fileURLToPath(new URL('../../scripts/', import.meta.url));
const dirs: string[] = [];
const temporaryDir = (prefix: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterEach(() => dirs.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  delete base.STUDYFLOW_CHROMIUM_PATH;
  delete base.STUDYFLOW_CACHE_DIR;
  return { ...base, ...extra };
}

const install = (extra: Record<string, string>) =>
  spawnSync(process.execPath, [path.join(scripts, 'install-chromium.mjs'), '--print-path'], { env: env(extra), encoding: 'utf8', timeout: 120_000 });

/** chromiumExecutablePath() in a process of its own, under the given environment: its path or its error. */
function helper(extra: Record<string, string>): { path?: string; error?: { name: string; message: string } } {
  const code = `import(${JSON.stringify(path.join(scripts, 'chromium.mjs'))}).then((m) => {
    try { process.stdout.write(JSON.stringify({ path: m.chromiumExecutablePath() })); }
    catch (e) { process.stdout.write(JSON.stringify({ error: { name: e.name, message: e.message } })); }
  });`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], { env: env(extra), encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { path?: string; error?: { name: string; message: string } };
}

describe('headless Chromium from the npm package, on a fresh machine', () => {
  it('names the one command to run while the browser is not unpacked', () => {
    const xdg = path.join(temporaryDir('studyflow-xdg-'), 'not-yet');
    const missing = helper({ XDG_CACHE_HOME: xdg });
    expect(missing.error?.name).toBe('ChromiumMissingError');
    expect(missing.error?.message).toBe(
      `headless Chromium is not available: it has not been unpacked into ${path.join(xdg, 'studyflow', 'chromium', '147.0.0')}; run \`node scripts/install-chromium.mjs\` (npm test runs it), or set STUDYFLOW_CHROMIUM_PATH to a Chromium binary`,
    );
    const notExecutable = helper({ XDG_CACHE_HOME: xdg, STUDYFLOW_CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(notExecutable.error?.message).toContain('STUDYFLOW_CHROMIUM_PATH=/nonexistent/chromium is not an executable file');
  });

  it('unpacks it into a cache root that does not exist yet, reuses it, and playwright-core drives it', async () => {
    const xdg = path.join(temporaryDir('studyflow-xdg-'), 'not-yet');
    const first = install({ XDG_CACHE_HOME: xdg });
    expect(first.status, first.stderr).toBe(0);
    const launcher = first.stdout.trim();
    expect(launcher).toBe(path.join(xdg, 'studyflow', 'chromium', '147.0.0', 'chromium'));
    expect(first.stderr).toMatch(/^studyflow: Chromium \d+\.\d+\.\d+\.\d+ ready at /m);
    // No staging directory is left beside it, and the second run unpacks nothing.
    expect(fs.readdirSync(path.dirname(path.dirname(launcher)))).toEqual(['147.0.0']);
    const second = install({ XDG_CACHE_HOME: xdg });
    expect(second.status).toBe(0);
    expect(second.stdout.trim()).toBe(launcher);
    expect(second.stderr).toBe('');
    expect(helper({ XDG_CACHE_HOME: xdg }).path).toBe(launcher);

    // The libraries it loads are its own or the C library's (libc6 and libgcc-s1, Essential on Debian):
    // nothing that a fresh machine would have to apt-get.
    const traced = spawnSync(launcher, ['--version'], { env: env({ LD_DEBUG: 'files' }), encoding: 'utf8' });
    expect(traced.status, traced.stderr).toBe(0);
    const loaded = [...new Set([...traced.stderr.matchAll(/calling init: (\S+)/g)].map((m) => m[1]))];
    expect(loaded.length).toBeGreaterThan(3);
    const essential = /^\/(?:usr\/)?lib(?:64)?\/(?:x86_64-linux-gnu\/)?(?:ld-linux-x86-64|libc|libm|libdl|libpthread|libgcc_s)\.so/;
    expect(loaded.filter((lib) => !lib.startsWith(path.dirname(launcher)) && !essential.test(lib))).toEqual([]);
    expect(loaded).toContain(path.join(path.dirname(launcher), 'lib', 'libnss3.so'));

    // A page with text and SVG, rendered with the unpacked font.
    const browser = await chromium.launch({ executablePath: launcher, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const page = await browser.newPage();
      await page.setContent('<h1 style="font-family: sans-serif">studyflow</h1><svg width="300" height="40"><rect width="150" height="20" fill="#36c"/></svg>');
      expect(await page.locator('h1').textContent()).toBe('studyflow');
      expect(await page.locator('rect').boundingBox()).toMatchObject({ width: 150, height: 20 });
      // Text is drawn: without a font the browser lays text out but paints no glyph (an empty canvas).
      // (An expression in the page's own JavaScript: this project's TypeScript has no DOM types.)
      const inked = (await page.evaluate(`(() => {
        const canvas = document.createElement('canvas');
        canvas.width = 200;
        canvas.height = 40;
        const context = canvas.getContext('2d');
        context.font = '24px sans-serif';
        context.fillText('studyflow', 4, 30);
        return context.getImageData(0, 0, 200, 40).data.filter((value, i) => i % 4 === 3 && value > 0).length;
      })()`)) as number;
      expect(inked).toBeGreaterThan(200);
      const shot = await page.screenshot();
      expect(shot.subarray(1, 4).toString()).toBe('PNG');
    } finally {
      await browser.close();
    }
  });
});
