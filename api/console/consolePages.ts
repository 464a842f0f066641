import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Config } from '../../core/config';
import type { LedgerHeads } from '../../core/credits/credits';
import type { PurposeKeys } from '../../core/crypto/purposeKeys';
import type { Stores } from '../../core/deps';
import { Problem } from '../../core/problems';
import type { DecoyPasswordHash } from '../../core/users/signIn';
import { storeOutagePage } from '../oauth/authorizationFlow';
import { csrfValid, readPageForm } from '../views/pageSecurity';
import { formExpiredPage, problemPage } from './consoleErrors';
import type { AdmittedRead, ConsoleReads } from './consoleReads';
import type { ConsoleRoad } from './consoleRoad';
import { requireVisitor, type ConsoleVisitor } from './consoleVisitor';
import { askForPassword } from './passwordConfirmation';
import { SudoRequired } from './sudoOperations';

/**
 * How a console page module declares its pages: `get` and `post` handlers that receive the
 * signed-in visitor (the guard ran) and, for a post, the verified form (CSRF checked, nothing
 * read before). A `Problem` a handler throws becomes its page (consoleErrors.ts). A post the
 * road refused for want of sudo mode becomes "Confirm your password", holding what was posted.
 */
export interface ConsoleDeps {
  config: Config;
  road: ConsoleRoad;
  /** The app's decoy hash, so a password confirmation costs the same whether the account exists or not. */
  decoy: DecoyPasswordHash;
  /** The admission of list pages and exports (consoleReads.ts). */
  reads: ConsoleReads;
  /** The app's clock (sudo mode's 15 minutes are counted on it). */
  now: () => Date;
  /** The app's stores (core/deps.ts). */
  stores: Stores;
  /** The app's ledger heads (core/deps.ts): the credit figures' head probe starts where the app last saw it. */
  ledgerHeads: LedgerHeads;
  /** The app's purpose keys (core/deps.ts): CSRF tokens, sealed secrets, mailed links. */
  purposeKeys: PurposeKeys;
}

export type ConsoleGet = (ctx: Context, visitor: ConsoleVisitor, deps: ConsoleDeps) => Promise<void>;
export type ConsolePost = (ctx: Context, visitor: ConsoleVisitor, form: URLSearchParams, deps: ConsoleDeps) => Promise<void>;

export interface ConsolePages {
  get: (path: string, handler: ConsoleGet) => void;
  /** A page that lists what may grow without bound (a log, a ledger, jobs, people): admitted by the organization's limits. */
  list: (path: string, handler: ConsoleGet) => void;
  /** A download of a whole list (CSV): admitted by the organization's limits and its export slots. */
  download: (path: string, handler: ConsoleGet) => void;
  post: (path: string, handler: ConsolePost) => void;
}

async function answeringProblems(ctx: Context, visitor: ConsoleVisitor, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    if (err instanceof Problem && err.status < 500) return problemPage(ctx, visitor.layout, err);
    throw err;
  }
}

export function consolePages(router: Router, deps: ConsoleDeps): ConsolePages {
  const { config, reads } = deps;
  const get = (path: string, handler: ConsoleGet, admit?: AdmittedRead) =>
    router.get(
      path,
      storeOutagePage(async (ctx) => {
        const page = (visitor: ConsoleVisitor) => answeringProblems(ctx, visitor, () => handler(ctx, visitor, deps));
        if (admit) return admit(ctx, () => requireVisitor(ctx, deps), page);
        const visitor = await requireVisitor(ctx, deps);
        if (visitor) await page(visitor);
      }),
    );
  return {
    get: (path, handler) => get(path, handler),
    list: (path, handler) => get(path, handler, reads.list),
    download: (path, handler) => get(path, handler, reads.export),
    post(path, handler) {
      router.post(
        path,
        storeOutagePage(async (ctx) => {
          const visitor = await requireVisitor(ctx, deps);
          if (!visitor) return;
          const form = await readPageForm(ctx);
          if (!form || !csrfValid(ctx, config, deps.purposeKeys, form)) return formExpiredPage(ctx, visitor.layout);
          try {
            await answeringProblems(ctx, visitor, () => handler(ctx, visitor, form, deps));
          } catch (err) {
            if (!(err instanceof SudoRequired)) throw err;
            await askForPassword(ctx, deps.stores, visitor, { action: ctx.path, form }, config.authUrl);
          }
        }),
      );
    },
  };
}
