// Runs the studyflow CLI in this process (as `studyflow …` would run it, minus Node's start-up).
import { PassThrough } from 'node:stream';
import { main } from '../cli/main';

/** Exit code, stdout and the tail of stderr of one `studyflow` invocation. */
export async function runCli(argv: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-4000)));
  const code = await main(argv, { stdout, stderr }, { ...process.env, ...env });
  return { code, stdout: out, stderr: err };
}
