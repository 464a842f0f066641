import { MAX_ATTEMPTS, SPEC_RETRY_DELAYS_MS } from '../../../core/webhooks/retrySchedule';
import type { DeliveryView } from '../../../core/webhooks/webhookDeliveries';
import { html, type SafeHtml } from '../../views/safeHtml';

/**
 * An event's attempts laid against the nine-attempt schedule, one run at a time (the original
 * run, then each replay): where each attempt was planned relative to the run's first, when it
 * was sent, what the receiver answered, and the attempts still to come. A person sees at once
 * how far along the schedule a delivery is and whether it kept to it.
 */
export interface TimelineStep {
  attempt: number;
  /** Base delay from the run's first attempt (jitter only adds to it). */
  plannedOffsetMs: number;
  delivery: DeliveryView | null;
}

export interface TimelineRun {
  replay: number;
  steps: TimelineStep[];
}

/** Where each attempt falls from the first: the running sum of the schedule's delays. */
export function plannedOffsets(schedule: readonly number[] = SPEC_RETRY_DELAYS_MS): number[] {
  const offsets = [0];
  for (let i = 0; i < MAX_ATTEMPTS - 1; i++) offsets.push(offsets[i] + (schedule[i] ?? 0));
  return offsets;
}

export function deliveryTimeline(attempts: readonly DeliveryView[], schedule: readonly number[] = SPEC_RETRY_DELAYS_MS): TimelineRun[] {
  const offsets = plannedOffsets(schedule);
  const replays = [...new Set(attempts.map((a) => a.replay))].sort((a, b) => a - b);
  return replays.map((replay) => {
    const own = attempts.filter((a) => a.replay === replay);
    const ended = own.some((a) => a.status === 'succeeded' || a.status === 'dead_lettered');
    const last = Math.max(...own.map((a) => a.attempt));
    const steps: TimelineStep[] = [];
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const delivery = own.find((a) => a.attempt === attempt) ?? null;
      // After a success or a dead letter nothing more is planned for the run.
      if (!delivery && (ended || attempt > last + 1)) continue;
      steps.push({ attempt, plannedOffsetMs: offsets[attempt - 1], delivery });
    }
    return { replay, steps };
  });
}

/** "+2 h 5 min", "+35 s", "0 s": the largest two units, as people say an offset. */
export function offsetText(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds === 0) return '0 s';
  const parts: [number, string][] = [
    [Math.floor(seconds / 3600), 'h'],
    [Math.floor((seconds % 3600) / 60), 'min'],
    [seconds % 60, 's'],
  ];
  const shown = parts.filter(([n]) => n > 0).slice(0, 2);
  return `+${shown.map(([n, unit]) => `${n} ${unit}`).join(' ')}`;
}

/** An instant to the second, as a person reads it, with the exact value for machines. */
export function instantHtml(iso: string): SafeHtml {
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

function outcome(d: DeliveryView): string {
  const answer = d.response_status !== null ? `HTTP ${d.response_status}` : (d.error_code ?? 'no answer');
  return `${d.status.replace('_', ' ')} · ${answer}${d.duration_ms !== null ? ` · ${d.duration_ms} ms` : ''}`;
}

export function timelineHtml(runs: readonly TimelineRun[]): SafeHtml {
  if (runs.length === 0) return html`<p>No attempt has been made yet.</p>`;
  return html`${runs.map((run) => {
    const first = run.steps.find((s) => s.delivery)?.delivery;
    const start = first ? Date.parse(first.attempted_at) - run.steps[0].plannedOffsetMs : null;
    return html`<section class="timeline">
      <h3>${run.replay === 0 ? 'Original delivery' : `Replay ${run.replay}`}</h3>
      <ol>
        ${run.steps.map((step) => {
          const d = step.delivery;
          const sent = d && start !== null ? html` · sent ${instantHtml(d.attempted_at)} (${offsetText(Date.parse(d.attempted_at) - start)})` : html``;
          return html`<li class="${d ? `attempt ${d.status}` : 'attempt planned'}">
            <strong>Attempt ${step.attempt}</strong> · planned ${offsetText(step.plannedOffsetMs)}${sent}
            ${d ? html` · ${outcome(d)}${d.next_attempt_at ? html` · next attempt ${instantHtml(d.next_attempt_at)}` : html``}` : html` · not yet sent`}
          </li>`;
        })}
      </ol>
    </section>`;
  })}`;
}
