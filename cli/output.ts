// Terminal output of the CLI: data on stdout, progress on stderr, color only on a TTY without NO_COLOR.

export interface Streams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export class Output {
  /** Color on stderr (progress). */
  readonly color: boolean;
  /** Color on stdout (data): only when stdout itself is a terminal, so redirected output stays plain. */
  readonly dataColor: boolean;
  constructor(
    readonly streams: Streams = { stdout: process.stdout, stderr: process.stderr },
    env: NodeJS.ProcessEnv = process.env,
  ) {
    const allowed = !('NO_COLOR' in env) && env.TERM !== 'dumb';
    this.color = Boolean(streams.stderr.isTTY) && allowed;
    this.dataColor = Boolean(streams.stdout.isTTY) && allowed;
  }

  /** Data: what scripts read. Color codes are removed unless stdout is a terminal. */
  data(text: string): void {
    const plain = this.color && !this.dataColor ? text.replace(/\u001b\[[0-9;]*m/g, '') : text;
    this.streams.stdout.write(plain.endsWith('\n') ? plain : `${plain}\n`);
  }

  json(value: unknown): void {
    this.data(JSON.stringify(value, null, 2));
  }

  /** Progress and diagnostics: what people read. */
  progress(text: string): void {
    this.streams.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  paint(code: number, text: string): string {
    return this.color ? `\u001b[${code}m${text}\u001b[0m` : text;
  }
  green = (t: string) => this.paint(32, t);
  red = (t: string) => this.paint(31, t);
  yellow = (t: string) => this.paint(33, t);
  dim = (t: string) => this.paint(2, t);
  bold = (t: string) => this.paint(1, t);
}

/** A plain text table with aligned columns. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => visibleLength(r[i] ?? ''))));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(widths[i] - visibleLength(c)))).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function visibleLength(text: string): number {
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}

/** An error the CLI reports as one line and an exit code, never a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
