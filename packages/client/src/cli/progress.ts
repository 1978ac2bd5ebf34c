import { SingleBar } from 'cli-progress';

export interface Counts {
  done: number;
  failed: number;
  total: number;
  credits: number;
}

/** What a run tells the person watching it. */
export interface Progress {
  start(counts: Counts): void;
  update(counts: Counts): void;
  /** A wait for a limit, with its end (ms since the epoch); null when the wait is over. */
  waiting(reason: string | null, until?: number): void;
  /** An event worth a line of its own when there is no bar (a job created, a result written or failed). */
  event(line: string): void;
  stop(): void;
}

/** `m:ss` for a wait's time left. */
export function formatEta(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

const describe = (counts: Counts): string =>
  `done ${counts.done}, failed ${counts.failed} of ${counts.total}; credits used ${counts.credits}`;

/** A bar redrawn in place, for a terminal: done, failed, total, credits and any wait with its ETA. */
export class BarProgress implements Progress {
  private readonly bar: SingleBar;
  private waitTimer: NodeJS.Timeout | undefined;

  constructor(stream: NodeJS.WritableStream = process.stdout) {
    this.bar = new SingleBar({
      format: '{bar} {value}/{total} | done {done} | failed {failed} | credits {credits} | {status}',
      hideCursor: true,
      stream,
      clearOnComplete: false,
    });
  }

  start(counts: Counts): void {
    this.bar.start(counts.total, counts.done + counts.failed, { ...counts, status: 'working' });
  }

  update(counts: Counts): void {
    this.bar.update(counts.done + counts.failed, { ...counts });
  }

  waiting(reason: string | null, until?: number): void {
    clearInterval(this.waitTimer);
    if (reason === null || until === undefined) {
      this.bar.update({ status: 'working' });
      return;
    }
    const show = () => this.bar.update({ status: `${reason}, ETA ${formatEta(until - Date.now())}` });
    show();
    this.waitTimer = setInterval(show, 1000);
  }

  event(): void {
    // The bar shows the counts; single events would only scroll it away.
  }

  stop(): void {
    clearInterval(this.waitTimer);
    this.bar.stop();
  }
}

/** One line per event, for a log or a pipe, where a redrawn bar would be noise. */
export class LineProgress implements Progress {
  constructor(private readonly write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)) {}

  start(counts: Counts): void {
    this.write(`starting: ${describe(counts)}`);
  }

  update(counts: Counts): void {
    this.write(`progress: ${describe(counts)}`);
  }

  waiting(reason: string | null, until?: number): void {
    if (reason !== null && until !== undefined) this.write(`${reason}, ETA ${formatEta(until - Date.now())}`);
  }

  event(line: string): void {
    this.write(line);
  }

  stop(): void {}
}
