import path from 'node:path';
import { startEmbeddedStack } from '../../dev/embedded-stack';
import { packageFile } from '../../worker/package-files';
import type { CliContext } from '../main';
import { run as apply } from './apply';
import { parseApiProfile } from './sandbox';

export const QUICKSTART = packageFile('examples/quickstart/study.yaml');

/**
 * The embedded default end to end: Temporal dev server (SQLite under .studyflow/demo), the sandbox
 * API and a worker on free loopback ports; applies examples/quickstart and prints the result.
 */
export async function run(ctx: CliContext, options: { keepRunning?: boolean; json?: boolean; profile?: string }): Promise<number> {
  const stateDir = path.resolve(ctx.cwd, '.studyflow', 'demo');
  // `--profile cint`: the sandbox speaks the published reference exactly and the worker and the apply use the cint profile.
  const apiProfile = parseApiProfile(options.profile);
  ctx.out.progress(`studyflow demo: starting Temporal (SQLite), the sandbox API (${apiProfile} profile) and a worker…`);
  const stack = await startEmbeddedStack({
    apiProfile,
    encryptPayloads: true,
    stateDir,
    temporalPort: 0,
    sandboxPort: 0,
    stopWithParent: true,
  });
  try {
    ctx.out.progress(`Temporal ${stack.temporalAddress}${stack.uiUrl ? `, UI ${stack.uiUrl}` : ''}; sandbox API ${stack.sandbox.baseUrl}`);
    ctx.out.progress(`applying ${path.relative(ctx.cwd, QUICKSTART)}`);
    const code = await apply(
      { ...ctx, env: { ...ctx.env, ...stack.env } },
      [QUICKSTART],
      { wait: true, requireLive: true, timeout: '300', json: options.json },
    );
    if (!options.json) {
      const held = stack.sandbox.state();
      const tgs = Object.values(held.target_groups);
      ctx.out.progress(
        `the sandbox holds ${Object.keys(held.projects).length} project(s) and ${tgs.length} target group(s): ${tgs.map((t) => `${t.id} ${t.status}`).join(', ')}`,
      );
    }
    if (options.keepRunning) {
      ctx.out.progress('');
      ctx.out.progress('The stack keeps running; in another shell:');
      for (const [name, value] of Object.entries(stack.env)) ctx.out.progress(`  export ${name}=${shellQuote(value)}`);
      ctx.out.progress('  npx studyflow status examples/quickstart/study.yaml');
      ctx.out.progress(`  temporal workflow list --address ${stack.temporalAddress}`);
      ctx.out.progress('Ctrl-C stops it.');
      await ctx.interrupted;
    }
    return code;
  } finally {
    await stack.stop();
  }
}

function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
