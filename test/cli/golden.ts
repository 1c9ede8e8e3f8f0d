// Golden files for CLI output: `expectGolden(name, text)` compares text with test/cli/golden/<name>.txt;
// UPDATE_GOLDEN=1 rewrites the file instead. Only what really varies is normalized, by explicit
// replacements the caller names (temp dirs, ids, durations, timestamps, ports).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

export const GOLDEN_DIR = path.resolve(import.meta.dirname, 'golden');

/** One replacement: every match of `pattern` (a global RegExp) becomes `with`. */
export interface Replacement {
  pattern: RegExp;
  with: string;
}

/** Applies the replacements in order. A non-global pattern is an error: it would replace only the first match. */
export function normalize(text: string, replacements: readonly Replacement[]): string {
  let result = text;
  for (const { pattern, with: replacement } of replacements) {
    if (!pattern.global) throw new Error(`normalize: ${String(pattern)} must have the g flag`);
    result = result.replace(pattern, replacement);
  }
  return result;
}

/** A replacement of one literal string (a temp dir, a port) everywhere it occurs. */
export function literal(value: string, replacement: string): Replacement {
  return { pattern: new RegExp(value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g'), with: replacement };
}

function goldenPath(name: string): string {
  if (!/^[a-z0-9][a-z0-9/._-]*$/.test(name) || name.includes('..')) throw new Error(`golden name "${name}": use lowercase kebab-case`);
  return path.join(GOLDEN_DIR, `${name}.txt`);
}

/** True when this run rewrites golden files instead of comparing with them. */
export const updatingGolden = process.env.UPDATE_GOLDEN === '1';

/** Compares `actual` with the golden file `name`, or rewrites it when UPDATE_GOLDEN=1. */
export function expectGolden(name: string, actual: string): void {
  const file = goldenPath(name);
  if (updatingGolden) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, actual);
    return;
  }
  if (!fs.existsSync(file)) {
    throw new Error(`golden file ${path.relative(process.cwd(), file)} is missing; run the test with UPDATE_GOLDEN=1 to create it`);
  }
  expect(actual, `output differs from ${path.relative(process.cwd(), file)} (UPDATE_GOLDEN=1 rewrites it)`).toBe(fs.readFileSync(file, 'utf8'));
}

/** The sections of one CLI run as a golden text: exit code, stdout and stderr, each labelled. */
export function cliTranscript(result: { code: number; stdout: string; stderr: string }): string {
  return `exit code: ${result.code}\n--- stdout ---\n${result.stdout}--- stderr ---\n${result.stderr}`;
}
