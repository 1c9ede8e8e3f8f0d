// Runs the studyflow CLI in this process with captured streams, as scripts and CI see it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../cli/main';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

export interface CapturedRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of one in-process run. */
export interface RunCliOptions {
  /** The whole environment of the run (the test process's own is not inherited). */
  env?: Record<string, string>;
  /** Make stderr look like a terminal (`isTTY`), as the CLI sees a real one. */
  stderrIsTTY?: boolean;
  stdoutIsTTY?: boolean;
}

function capture(isTTY: boolean | undefined): { stream: PassThrough & { isTTY?: boolean }; text: () => string } {
  const stream: PassThrough & { isTTY?: boolean } = new PassThrough();
  if (isTTY) stream.isTTY = true;
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { stream, text: () => text };
}

/** `studyflow <args>` through `main`, with stdout and stderr captured. */
export async function runCli(args: string[], options: RunCliOptions = {}): Promise<CapturedRun> {
  const stdout = capture(options.stdoutIsTTY);
  const stderr = capture(options.stderrIsTTY);
  const code = await main(args, { stdout: stdout.stream, stderr: stderr.stream }, options.env ?? {});
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** A fresh temp dir, removed by the returned cleanup. */
export function makeTempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `studyflow-${prefix}-`)));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
