import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { Config } from '../../core/config';
import { sha256Hex } from '../../core/crypto/hash';
import {
  EXPORT_SLOTS,
  LIST_PAGE_SLOTS,
  readSlotsFullHere,
  readSlotsTaken,
  takeReadSlot,
  type ReadSlot,
  type ReadSlotKind,
} from '../../core/limits/consoleReadSlots';
import type { AcquireAdmission, AdmissionHandle } from '../../core/limits/operationAdmission';
import type { StoreAdmission } from '../../core/limits/requestAdmission';
import { Problem } from '../../core/problems';
import { html } from '../views/safeHtml';
import { sessionValueOf } from '../views/pageSecurity';
import { sendConsolePage, type LayoutVisitor } from './consoleLayout';
import { listPagesTooFast, ConsoleReadsPace } from './consoleReadsPace';
import type { ConsoleVisitor } from './consoleVisitor';

/**
 * Console reads held to the organization's limits like their /v1 twins (docs/limits.md): a
 * list page takes a place in the organization's strict per-second window and one of its
 * in-flight slots, exactly as a /v1 request does, and one of the organization's few console
 * list slots; an export (a CSV download) takes one of its 2 export slots instead
 * (core/limits/consoleReadSlots.ts). Whatever was taken is held
 * until the response is sent (for a download, its last byte, or the moment it is abandoned).
 * Beyond those, this replica paces each organization's reads (consoleReadsPace.ts): a few list
 * pages a second, and its downloads' bytes a second.
 * A refusal is the "Too many requests" page (429 with Retry-After) before anything is read.
 *
 * Pages that are not lists (the overview, the forms, Limits and Budgets) are not admitted, like
 * the console's writes (consoleRoad.ts): an admin must reach Limits to lower a cap precisely
 * when the API's traffic uses the limits up.
 */
export interface ConsoleReads {
  /** Runs a list page's `work` inside the organization's request rate and in-flight limit. */
  list: AdmittedRead;
  /** Runs an export's `work` (which sets the body, usually a stream) inside those and an export slot. */
  export: AdmittedRead;
  /** What an export of the organization awaits before each read of the store (consoleReadsPace.ts). */
  exportReadTurn: (orgId: string) => (rows: number) => Promise<void>;
}

/**
 * `visit` reads who is asking (the page guard: the session, the person, the organization's name)
 * and answers for itself when nobody is signed in; `work` is the page.
 */
export type AdmittedRead = (ctx: Context, visit: () => Promise<ConsoleVisitor | null>, work: (visitor: ConsoleVisitor) => Promise<void>) => Promise<void>;

/**
 * A browser session's organization, as the last read of it on this replica found it: enough to
 * refuse its next read while the organization's slots are all taken here, before the session,
 * the person and the organization are read again. Never used to admit anything.
 */
const KNOWN_SESSION_MS = 10_000;
/** Sessions remembered at once; past it the memo starts over (a refusal then costs the full reads once). */
const KNOWN_SESSIONS = 10_000;
/**
 * How long a read refused by this replica's pace or slots waits before its 429 page goes out, at
 * most (a kind that asks to come back sooner waits that long). A client that sends its next
 * request as soon as the last one answered (a script, a reload loop) would otherwise turn cheap
 * refusals into more of them, each still a response to write; at this pace each of its
 * connections costs about one refusal a second, whatever it does, and a person is told to come
 * back no sooner. A page the pace refuses after reading who asks waits too: when the pace frees
 * one page, every connection that asked in that moment reads its session and all but one are
 * refused, and answered at once they would all be back for the next.
 */
const REFUSAL_PACE_MS = 1000;

async function refusedInTurn(ctx: Context, visitor: LayoutVisitor | null, kind: ReadSlotKind, problem: Problem): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.min(REFUSAL_PACE_MS, kind.retryAfterSeconds * 1000)));
  tooManyRequestsPage(ctx, visitor, problem);
}

class KnownSessions {
  private readonly orgs = new Map<string, { orgId: string; until: number }>();

  constructor(private readonly now: () => number) {}

  orgOf(sessionValue: string): string | undefined {
    const known = this.orgs.get(sha256Hex(sessionValue));
    return known && known.until > this.now() ? known.orgId : undefined;
  }

  remember(sessionValue: string, orgId: string): void {
    if (this.orgs.size >= KNOWN_SESSIONS) this.orgs.clear();
    this.orgs.set(sha256Hex(sessionValue), { orgId, until: this.now() + KNOWN_SESSION_MS });
  }
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

export function tooManyRequestsPage(ctx: Context, visitor: LayoutVisitor | null, problem: Problem): void {
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
  pace: ConsoleReadsPace,
  kind: ReadSlotKind,
  ctx: Context,
  visitor: ConsoleVisitor,
  work: (visitor: ConsoleVisitor) => Promise<void>,
): Promise<void> {
  let slot: ReadSlot | undefined;
  let handle: AdmissionHandle;
  try {
    // The organization's own slots first: a refusal there takes nothing from its request window.
    slot = await takeReadSlot(admission, kind, visitor.user.orgId);
    handle = await acquire(visitor.principal);
  } catch (err) {
    // Only a page that runs spends the pace: one refused by the limits above gives its turn back.
    if (kind === LIST_PAGE_SLOTS) pace.giveBackListPage(visitor.user.orgId);
    slot?.release();
    if (err instanceof Problem && err.status === 429) return tooManyRequestsPage(ctx, visitor.layout, err);
    throw err;
  }
  const held = slot;
  const orgId = visitor.user.orgId;
  await holdUntilSent(
    ctx,
    async () => {
      await work(visitor);
      if (kind === EXPORT_SLOTS && ctx.body instanceof Readable) ctx.body = pace.pacedExport(orgId, ctx.body);
    },
    () => {
      held.release();
      handle.release();
    },
  );
}

export function consoleReads(acquire: AcquireAdmission, admission: StoreAdmission, config: Config): ConsoleReads {
  const known = new KnownSessions(admission.now);
  const pace = new ConsoleReadsPace(admission.now);
  /** Why this replica alone would refuse the organization's read now, if it would. */
  const refusalHere = (kind: ReadSlotKind, orgId: string): Problem | undefined => {
    if (kind === LIST_PAGE_SLOTS && pace.listPagesSpent(orgId)) return listPagesTooFast();
    if (readSlotsFullHere(admission, kind, orgId)) return readSlotsTaken(kind);
    return undefined;
  };
  const read =
    (kind: ReadSlotKind): AdmittedRead =>
    async (ctx, visit, work) => {
      // An organization this replica would refuse anyway is refused before its session, person
      // and organization are read.
      const sessionValue = sessionValueOf(ctx, config);
      const knownOrgId = sessionValue ? known.orgOf(sessionValue) : undefined;
      const early = knownOrgId ? refusalHere(kind, knownOrgId) : undefined;
      if (early) return refusedInTurn(ctx, null, kind, early);
      // A known organization's page takes its turn before the reads, so when the pace frees one
      // turn, one request reads its session for it, not every request that asked in that moment.
      let turnOf = kind === LIST_PAGE_SLOTS && knownOrgId && pace.takeListPage(knownOrgId) ? knownOrgId : undefined;
      const giveBackTurn = () => {
        if (turnOf) pace.giveBackListPage(turnOf);
        turnOf = undefined;
      };
      let visitor: ConsoleVisitor | null;
      try {
        visitor = await visit();
      } catch (err) {
        giveBackTurn();
        throw err;
      }
      if (!visitor || visitor.user.orgId !== turnOf) giveBackTurn();
      if (!visitor) return;
      const orgId = visitor.user.orgId;
      known.remember(visitor.sessionValue, orgId);
      if (kind === LIST_PAGE_SLOTS && !turnOf && !pace.takeListPage(orgId)) return refusedInTurn(ctx, visitor.layout, kind, listPagesTooFast());
      await admitted(acquire, admission, pace, kind, ctx, visitor, work);
    };
  return { list: read(LIST_PAGE_SLOTS), export: read(EXPORT_SLOTS), exportReadTurn: (orgId) => pace.exportReadTurn(orgId) };
}
