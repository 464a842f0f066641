import type { Context } from 'koa';
import { EXPORT_SLOTS, LIST_PAGE_SLOTS, takeReadSlot, type ReadSlot, type ReadSlotKind } from '../../core/limits/consoleReadSlots';
import type { AcquireAdmission, AdmissionHandle } from '../../core/limits/operationAdmission';
import type { StoreAdmission } from '../../core/limits/requestAdmission';
import { Problem } from '../../core/problems';
import { html } from '../views/safeHtml';
import { sendConsolePage, type LayoutVisitor } from './consoleLayout';
import type { ConsoleVisitor } from './consoleVisitor';

/**
 * Console reads held to the organization's limits like their /v1 twins (docs/limits.md): a
 * list page takes a place in the organization's strict per-second window and one of its
 * in-flight slots, exactly as a /v1 request does, and one of the organization's few console
 * list slots; an export (a CSV download) takes one of its 2 export slots instead
 * (core/limits/consoleReadSlots.ts). Whatever was taken is held
 * until the response is sent (for a download, its last byte, or the moment it is abandoned).
 * A refusal is the "Too many requests" page (429 with Retry-After) before anything is read.
 *
 * Pages that are not lists (the overview, the forms, Limits and Budgets) are not admitted, like
 * the console's writes (consoleRoad.ts): an admin must reach Limits to lower a cap precisely
 * when the API's traffic uses the limits up.
 */
export interface ConsoleReads {
  /** Runs a list page's `work` inside the organization's request rate and in-flight limit. */
  list: (ctx: Context, visitor: ConsoleVisitor, work: () => Promise<void>) => Promise<void>;
  /** Runs an export's `work` (which sets the body, usually a stream) inside those and an export slot. */
  export: (ctx: Context, visitor: ConsoleVisitor, work: () => Promise<void>) => Promise<void>;
}

/** Calls `release` once the response is finished (or its connection closed) and `work` has settled. */
async function holdUntilSent(ctx: Context, work: () => Promise<void>, release: () => void): Promise<void> {
  let settled = false;
  let closed = false;
  const done = () => {
    if (settled && closed) release();
  };
  ctx.res.once('close', () => {
    closed = true;
    done();
  });
  try {
    await work();
  } finally {
    settled = true;
    done();
  }
}

export function tooManyRequestsPage(ctx: Context, visitor: LayoutVisitor, problem: Problem): void {
  const seconds = problem.headers['Retry-After'] ?? '1';
  ctx.set('Retry-After', seconds);
  sendConsolePage(
    ctx,
    {
      title: 'Too many requests',
      visitor,
      body: html`<p role="alert">${problem.detail}</p>
        <p>
          Your organization's limits are shared by its API keys and its people's console pages. Try again in ${seconds}
          ${seconds === '1' ? 'second' : 'seconds'}.
        </p>`,
    },
    429,
  );
}

/** Runs `work` holding one slot of `kind` and the organization's admission, taken in that order, all given back once sent. */
async function admitted(
  acquire: AcquireAdmission,
  admission: StoreAdmission,
  kind: ReadSlotKind,
  ctx: Context,
  visitor: ConsoleVisitor,
  work: () => Promise<void>,
): Promise<void> {
  let slot: ReadSlot | undefined;
  let handle: AdmissionHandle;
  try {
    // The organization's own slots first: a refusal there takes nothing from its request window.
    slot = await takeReadSlot(admission, kind, visitor.user.orgId);
    handle = await acquire(visitor.principal);
  } catch (err) {
    slot?.release();
    if (err instanceof Problem && err.status === 429) return tooManyRequestsPage(ctx, visitor.layout, err);
    throw err;
  }
  const held = slot;
  await holdUntilSent(ctx, work, () => {
    held.release();
    handle.release();
  });
}

export function consoleReads(acquire: AcquireAdmission, admission: StoreAdmission): ConsoleReads {
  return {
    list: (ctx, visitor, work) => admitted(acquire, admission, LIST_PAGE_SLOTS, ctx, visitor, work),
    export: (ctx, visitor, work) => admitted(acquire, admission, EXPORT_SLOTS, ctx, visitor, work),
  };
}
