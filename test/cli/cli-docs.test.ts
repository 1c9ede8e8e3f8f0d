// docs/cli.md documents the program `buildProgram` builds: a `## studyflow <command>` section per
// command naming every option and argument, the exit codes, and every environment variable the CLI
// reads. Adding a command or an option without documenting it fails here.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/main';
import { Output } from '../../cli/output';
import { REPO_ROOT } from './run-cli';

const DOC = fs.readFileSync(path.join(REPO_ROOT, 'docs/cli.md'), 'utf8');

function program(): Command {
  const out = new Output({ stdout: process.stdout, stderr: process.stderr }, {});
  return buildProgram({ out, env: {}, cwd: REPO_ROOT, interrupted: new Promise(() => undefined) }, () => undefined);
}

/** The text of each `## studyflow <name>` section, by command name. */
function commandSections(markdown: string): Map<string, string> {
  const sections = new Map<string, string>();
  const parts = markdown.split(/^## /m).slice(1);
  for (const part of parts) {
    const heading = part.slice(0, part.indexOf('\n'));
    const match = /^`studyflow (\S+)`$/.exec(heading.trim());
    if (match) sections.set(match[1], part);
  }
  return sections;
}

/** Every STUDYFLOW_* name the CLI's own sources read, and the study client's (client/) it works through. */
function variablesReadByCli(): string[] {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) for (const m of fs.readFileSync(full, 'utf8').matchAll(/\b(STUDYFLOW_[A-Z0-9_]*[A-Z0-9])\b/g)) names.add(m[1]);
    }
  };
  walk(path.join(REPO_ROOT, 'cli'));
  walk(path.join(REPO_ROOT, 'client'));
  return [...names].sort();
}

const commands = program().commands;
const sections = commandSections(DOC);

describe('docs/cli.md', () => {
  it('has a section for every command and no section for a command that does not exist', () => {
    expect([...sections.keys()].sort()).toEqual(commands.map((c) => c.name()).sort());
  });

  it.each(commands.map((c) => [c.name(), c] as const))('documents every option and argument of %s in its section', (name, command) => {
    const section = sections.get(name) ?? '';
    for (const option of command.options) expect(section, `${name} ${option.long}`).toContain(`\`${option.long}`);
    for (const argument of command.registeredArguments) {
      expect(section, `${name} <${argument.name()}>`).toContain(`<${argument.name()}${argument.variadic ? '...' : ''}>`);
    }
    expect(section, `${name}: a synopsis line`).toContain(`studyflow ${name}`);
    expect(section, `${name}: its exit codes`).toMatch(/Exit `0`/);
  });

  it('documents the choices of every option that has them', () => {
    for (const command of commands) {
      const section = sections.get(command.name()) ?? '';
      for (const option of command.options) for (const choice of option.argChoices ?? []) expect(section, `${command.name()} ${option.long} ${choice}`).toContain(`\`${choice}\``);
    }
  });

  it('documents the exit codes 0, 1 and 2 and the global options', () => {
    for (const code of ['0', '1', '2']) expect(DOC).toMatch(new RegExp(`^\\| \`${code}\` \\| `, 'm'));
    expect(DOC).toContain('--version');
    expect(DOC).toContain('--help');
  });

  it('documents every STUDYFLOW_* variable the CLI reads, and the Temporal and CI ones', () => {
    const read = variablesReadByCli();
    expect(read).toContain('STUDYFLOW_ACCOUNT_ID');
    for (const name of [...read, 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_API_KEY', 'GITHUB_STEP_SUMMARY', 'GITHUB_SHA', 'NO_COLOR']) {
      expect(DOC, name).toContain(`\`${name}\``);
    }
  });

  it('finds a section that is missing (the check is not vacuous)', () => {
    const without = commandSections(DOC.replace('## `studyflow cancel`', '## Cancelling'));
    expect(without.has('cancel')).toBe(false);
    expect(without.size).toBe(sections.size - 1);
  });
});
