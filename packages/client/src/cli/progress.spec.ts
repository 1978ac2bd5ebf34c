import { PassThrough } from 'node:stream';
import { BarProgress, formatEta } from './progress';

/** A terminal as cli-progress sees one: a stream that says it is a TTY, with a width. */
function fakeTerminal(): { stream: PassThrough; text: () => string } {
  const stream = Object.assign(new PassThrough(), {
    isTTY: true,
    columns: 160,
    cursorTo: () => true,
    clearLine: () => true,
  });
  let written = '';
  stream.on('data', (chunk: Buffer) => (written += chunk.toString()));
  return { stream, text: () => written };
}

describe(BarProgress.name, () => {
  it('draws done, failed, total and credits used, and a wait with its ETA, counted down every second', () => {
    // A fake clock: the ETA is the wait's end less the time on it when the bar is drawn.
    jest.useFakeTimers({ now: Date.parse('2026-11-28T12:00:00Z') });
    try {
      const terminal = fakeTerminal();
      const progress = new BarProgress(terminal.stream);
      progress.start({ done: 0, failed: 0, total: 5, credits: 0 });
      progress.update({ done: 2, failed: 1, total: 5, credits: 2 });
      progress.waiting('create limit', Date.now() + 65_000);
      jest.advanceTimersByTime(1000);
      progress.stop();
      expect(terminal.text()).toMatch(/3\/5 \| done 2 \| failed 1 \| credits 2 \| create limit, ETA 1:05/);
      expect(terminal.text()).toMatch(/create limit, ETA 1:04/);
    } finally {
      jest.useRealTimers();
    }
  });

  it('writes an ETA as minutes and seconds', () => {
    expect(formatEta(65_000)).toBe('1:05');
    expect(formatEta(-10)).toBe('0:00');
  });
});
