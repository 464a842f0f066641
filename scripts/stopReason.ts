/**
 * Why a local service stopped, from what it wrote to its log: the lines that name a cause and its
 * last lines. A Go crash prints its cause first and a goroutine dump after it, so the last lines
 * alone show only stack frames.
 */
const CAUSE = /^(panic:|fatal error:)|address already in use|level=(error|fatal)|"level":"(error|fatal)"/i;

export function stopReason(log: string, lastLines = 5): string {
  const lines = log.trimEnd().split('\n');
  if (lines.length <= lastLines) return lines.join('\n');
  const tail = lines.slice(-lastLines);
  const causes = lines
    .slice(0, -lastLines)
    .filter((line) => CAUSE.test(line))
    .slice(0, 3);
  return [...causes, ...(causes.length ? ['…'] : []), ...tail].join('\n');
}

/** A start that failed on a port another process took, which other ports can fix. */
export function portTaken(reason: string): boolean {
  return /address already in use/.test(reason);
}

/** A Go program that crashed (exit code 2 with a panic or a runtime fatal error). */
export function crashed(reason: string): boolean {
  return /^(panic:|fatal error:)/m.test(reason);
}
