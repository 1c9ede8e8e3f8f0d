// Step 1 of the studyflow action: installs the studyflow CLI into its own directory under RUNNER_TEMP, from the
// action's own checkout packed with `npm pack` (the default) or from INPUT_PACKAGE (an npm spec or a tarball).
// Writes `studyflow=<path of the command>` to GITHUB_OUTPUT.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function fail(message) {
  process.stdout.write(`::error title=studyflow action::${message.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}\n`);
  process.exit(1);
}

function npm(args, cwd) {
  process.stderr.write(`$ npm ${args.join(' ')}  (in ${cwd})\n`);
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (result.status !== 0) fail(`npm ${args[0]} failed in ${cwd} (exit ${result.status ?? result.signal})`);
  return result.stdout;
}

const actionPath = process.env.GITHUB_ACTION_PATH;
const runnerTemp = process.env.RUNNER_TEMP || os.tmpdir();
const outputFile = process.env.GITHUB_OUTPUT;
if (!actionPath) fail('GITHUB_ACTION_PATH is not set: run this script as a step of the action');
if (!outputFile) fail('GITHUB_OUTPUT is not set: run this script as a step of the action');

// One install per job for each action checkout and package: a second use of the action in the same job reuses it.
const requested = (process.env.INPUT_PACKAGE ?? '').trim();
const prefix = path.join(runnerTemp, `studyflow-cli-${createHash('sha256').update(`${actionPath}\n${requested}`).digest('hex').slice(0, 12)}`);
const bin = path.join(prefix, 'node_modules', '.bin', 'studyflow');
if (fs.existsSync(bin) && spawnSync(bin, ['--version'], { encoding: 'utf8' }).status === 0) {
  process.stderr.write(`studyflow already installed at ${bin}\n`);
  fs.appendFileSync(outputFile, `studyflow=${bin}\n`);
  process.exit(0);
}
fs.rmSync(prefix, { recursive: true, force: true });
fs.mkdirSync(prefix, { recursive: true });
let spec = requested;
if (!spec) {
  // The action's own checkout: its dependencies, then the package (`npm pack` builds dist/ through `prepack`).
  npm(['ci', '--no-audit', '--no-fund'], actionPath);
  const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', prefix], actionPath));
  spec = path.join(prefix, packed.filename);
} else if (fs.existsSync(spec)) {
  spec = path.resolve(spec);
}

// The install scripts studyflow's own package.json declares (allowScripts) hold for this install too, so npm
// runs none it has not reviewed and warns about none.
const { allowScripts = {} } = JSON.parse(fs.readFileSync(path.join(actionPath, 'package.json'), 'utf8'));
fs.writeFileSync(path.join(prefix, 'package.json'), `${JSON.stringify({ name: 'studyflow-action-install', private: true, allowScripts }, null, 2)}\n`);
npm(['install', '--no-audit', '--no-fund', '--omit=dev', spec], prefix);
if (!fs.existsSync(bin)) fail(`the installed package has no studyflow command (${bin})`);
const version = spawnSync(bin, ['--version'], { encoding: 'utf8' });
if (version.status !== 0) fail(`studyflow --version failed: ${version.stderr.trim()}`);
process.stderr.write(`studyflow ${version.stdout.trim()} installed at ${bin}\n`);
fs.appendFileSync(outputFile, `studyflow=${bin}\n`);
