import type { StudyStatus } from '../workflows/messages';
import type { Output } from './output';
import { phaseLabel, progressDetails, progressLine } from './status-view';

/**
 * Apply's progress on stderr. On a TTY: a block of lines (one per target group: phase, job
 * progress, feasibility, price) redrawn in place. Otherwise: one plain log line per change.
 */
export class LiveDisplay {
  private drawnLines = 0;
  private readonly lastLines = new Map<string, string>();
  private readonly tty: boolean;
  private readonly started = Date.now();

  constructor(private readonly out: Output) {
    this.tty = Boolean(out.streams.stderr.isTTY);
  }

  /** A line of its own (e.g. that Temporal is unreachable): on a TTY the block is cleared and drawn again below it. */
  note(text: string): void {
    if (this.tty && this.drawnLines > 0) {
      let clear = `\u001b[${this.drawnLines}A`;
      for (let i = 0; i < this.drawnLines; i += 1) clear += '\u001b[2K\n';
      this.out.streams.stderr.write(`${clear}\u001b[${this.drawnLines}A`);
      this.drawnLines = 0;
    }
    this.out.progress(text);
  }

  update(studies: { name: string; status?: StudyStatus }[]): void {
    if (this.tty) this.redraw(studies);
    else this.log(studies);
  }

  private log(studies: { name: string; status?: StudyStatus }[]): void {
    for (const { name, status } of studies) {
      if (!status) continue;
      const head = `${name}: ${status.phase}`;
      if (this.lastLines.get(name) !== head) {
        this.lastLines.set(name, head);
        this.out.progress(head);
      }
      for (const tg of Object.values(status.targetGroups)) {
        const id = `${name}#${tg.key}`;
        const line = progressLine(tg);
        if (this.lastLines.get(id) !== line) {
          this.lastLines.set(id, line);
          this.out.progress(`${name}: ${line}`);
        }
      }
    }
  }

  private redraw(studies: { name: string; status?: StudyStatus }[]): void {
    const elapsed = Math.round((Date.now() - this.started) / 1000);
    const lines: string[] = [];
    for (const { name, status } of studies) {
      lines.push(`${this.out.bold(name)}  ${status ? phaseLabel(this.out, status.phase) : 'starting'}  ${this.out.dim(`${elapsed}s`)}`);
      const tgs = Object.values(status?.targetGroups ?? {}).sort((a, b) => a.key.localeCompare(b.key));
      const width = Math.max(0, ...tgs.map((t) => t.key.length));
      for (const tg of tgs) {
        const phase = phaseLabel(this.out, tg.phase) + ' '.repeat(Math.max(0, 18 - tg.phase.length));
        lines.push(`  ${tg.key.padEnd(width)}  ${phase}${progressDetails(tg).join(' · ')}`.trimEnd());
      }
    }
    let text = '';
    if (this.drawnLines > 0) text += `\u001b[${this.drawnLines}A`;
    for (const line of lines) text += `\u001b[2K${line}\n`;
    for (let i = lines.length; i < this.drawnLines; i += 1) text += '\u001b[2K\n';
    this.out.streams.stderr.write(text);
    this.drawnLines = Math.max(lines.length, this.drawnLines);
  }

  finish(): void {
    this.drawnLines = 0;
  }
}
