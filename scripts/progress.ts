/**
 * Progress of a long local step (installing the Temporal CLI, building FerretDB, seeding
 * people), so a slow step does not look like a hung one. On a terminal: one line redrawn in
 * place with a bar (when the total is known), counts or bytes, and the elapsed time. Otherwise
 * (CI, a log file): one plain line every few seconds. Either way the step ends with its time.
 */
export interface Progress {
  /** How far it got: a count (of `total`) or bytes. */
  update: (done: number) => void;
  /** Ends the step with one line saying how long it took. */
  finish: () => void;
}

export interface ProgressOptions {
  total?: number;
  unit?: 'count' | 'bytes';
  stream?: NodeJS.WriteStream;
  /** Seconds between lines when the stream is not a terminal. */
  plainEverySeconds?: number;
}

const BAR_WIDTH = 24;

export function formatAmount(n: number, unit: 'count' | 'bytes'): string {
  if (unit === 'count') return n.toLocaleString('en-US');
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** One progress line: label, bar (with a total), amount, elapsed seconds. */
export function progressLine(p: { label: string; done?: number; total?: number; unit: 'count' | 'bytes'; elapsedMs: number; bar: boolean }): string {
  const parts = [p.label];
  if (p.total && p.done !== undefined) {
    const share = Math.min(1, Math.max(0, p.done / p.total));
    const filled = Math.round(share * BAR_WIDTH);
    if (p.bar) parts.push(`[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`);
    parts.push(`${formatAmount(p.done, p.unit)}/${formatAmount(p.total, p.unit)}`);
  } else if (p.done !== undefined && p.done > 0) {
    parts.push(formatAmount(p.done, p.unit));
  }
  parts.push(`${Math.floor(p.elapsedMs / 1000)} s`);
  return parts.join('  ');
}

export function startProgress(label: string, opts: ProgressOptions = {}): Progress {
  const stream = opts.stream ?? process.stderr;
  const tty = stream.isTTY === true;
  const unit = opts.unit ?? 'count';
  const started = Date.now();
  let done: number | undefined;
  let lastPlain = started;
  const line = () => progressLine({ label, done, total: opts.total, unit, elapsedMs: Date.now() - started, bar: tty });
  const draw = () => {
    if (tty) {
      stream.write(`\r\x1b[2K${line()}`);
    } else if (Date.now() - lastPlain >= (opts.plainEverySeconds ?? 5) * 1000) {
      lastPlain = Date.now();
      stream.write(`${line()}\n`);
    }
  };
  // Ticks on its own so the elapsed time moves even while a child process says nothing.
  const ticker = setInterval(draw, tty ? 500 : 1000);
  ticker.unref();
  return {
    update: (n) => {
      done = n;
      if (tty) draw();
    },
    finish: () => {
      clearInterval(ticker);
      const amount = done !== undefined && done > 0 ? `, ${formatAmount(done, unit)}` : '';
      stream.write(`${tty ? '\r\x1b[2K' : ''}${label}: done in ${((Date.now() - started) / 1000).toFixed(1)} s${amount}\n`);
    },
  };
}
