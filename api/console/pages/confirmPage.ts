import type { Config } from '../../../core/config';
import type { PurposeKeys } from '../../../core/crypto/purposeKeys';
import type { Stores } from '../../../core/deps';
import { PASSKEY_NOT_ACCEPTED, passkeySignInOptions, signInWithPasskey } from '../../../core/users/passkeyCeremonies';
import { relyingPartyOf } from '../../../core/users/passkeys';
import { checkSecondFactor, limitedAttempt } from '../../../core/users/secondFactorCheck';
import { signIn, type DecoyPasswordHash } from '../../../core/users/signIn';
import { recordConfirmation } from '../../../core/users/sudoMode';
import { CONSOLE_PATHS } from '../consolePaths';
import { seeOther, setConsoleHeaders } from '../consoleLayout';
import { setPageHeaders } from '../../views/pageSecurity';
import type { ConsolePages } from '../consolePages';
import { CONFIRM_PASSKEY_OPTIONS_PATH, confirmForm, type AfterConfirming } from '../passwordConfirmation';
import { safeReturnPath } from '../returnPath';
import type { ConsoleVisitor } from '../consoleVisitor';

interface Refusal {
  message: string;
  retryAfterSeconds?: number;
}

/** The password, checked by the sign-in's own function (its failure limits hold here too); null when right. */
async function passwordRefusal(
  stores: Stores,
  decoy: DecoyPasswordHash,
  visitor: ConsoleVisitor,
  form: URLSearchParams,
  address: string,
  now: Date,
): Promise<Refusal | null> {
  const result = await signIn(stores, decoy, visitor.user.email, form.get('password') ?? '', address, now);
  if (result.ok && result.user._id === visitor.user._id) return null;
  return !result.ok && result.retryAfterSeconds ? result : { message: 'The password is not correct.' };
}

/** A code of the person's authenticator app, used once and limited like the sign-in's; null when right. */
async function codeRefusal(
  stores: Stores,
  keys: PurposeKeys,
  visitor: ConsoleVisitor,
  code: string | null,
  address: string,
  now: Date,
): Promise<Refusal | null> {
  const result = await checkSecondFactor(stores, keys, visitor.user._id, { kind: 'code', value: code ?? '' }, address, now);
  return result.ok ? null : result;
}

/**
 * One of the person's own passkeys (options and answer bound to this person and this browser's
 * session), limited like a code; null when verified. Every refusal reads the same.
 */
async function passkeyRefusal(
  stores: Stores,
  config: Config,
  visitor: ConsoleVisitor,
  credential: string | null,
  address: string,
  now: Date,
): Promise<Refusal | null> {
  const verified = async () => {
    const result = await signInWithPasskey(stores, relyingPartyOf(config.authUrl), visitor.sessionValue, credential ?? '', now, visitor.user._id);
    return result.ok && result.user._id === visitor.user._id;
  };
  const result = await limitedAttempt(stores, visitor.user._id, address, now, verified, PASSKEY_NOT_ACCEPTED);
  return result.ok ? null : result;
}

/**
 * `/console/confirm` "Confirm your password" (sudo mode; the form and its two ways in:
 * passwordConfirmation.ts): the password, a code from the person's authenticator app, or one of
 * the person's passkeys (its options from CONFIRM_PASSKEY_OPTIONS_PATH, limited to their own).
 */
export function mountConfirmPage(pages: ConsolePages): void {
  pages.get(CONSOLE_PATHS.confirm, async (ctx, visitor, { config, stores }) => {
    await confirmForm(ctx, stores, visitor, { returnTo: safeReturnPath(ctx.query.return_to) ?? CONSOLE_PATHS.overview }, null, 200, config.authUrl);
  });
  pages.post(CONFIRM_PASSKEY_OPTIONS_PATH, async (ctx, visitor, _form, { config, now, stores }) => {
    const options = await passkeySignInOptions(stores, relyingPartyOf(config.authUrl), visitor.sessionValue, now(), visitor.user._id);
    setPageHeaders(ctx);
    ctx.type = 'application/json';
    ctx.body = options;
  });
  pages.post(CONSOLE_PATHS.confirm, async (ctx, visitor, form, { config, decoy, now, stores, purposeKeys }) => {
    const action = safeReturnPath(form.get('sudo_action'));
    const next: AfterConfirming = action ? { pending: { action, form } } : { returnTo: safeReturnPath(form.get('return_to')) ?? CONSOLE_PATHS.overview };
    const via = form.get('via');
    const refusal =
      via === 'code'
        ? await codeRefusal(stores, purposeKeys, visitor, form.get('code'), ctx.ip, now())
        : via === 'passkey'
          ? await passkeyRefusal(stores, config, visitor, form.get('credential'), ctx.ip, now())
          : await passwordRefusal(stores, decoy, visitor, form, ctx.ip, now());
    if (refusal) {
      if (refusal.retryAfterSeconds) ctx.set('Retry-After', String(refusal.retryAfterSeconds));
      return confirmForm(ctx, stores, visitor, next, refusal.message, refusal.retryAfterSeconds ? 429 : 401, config.authUrl);
    }
    await recordConfirmation(stores, visitor.sessionValue, now());
    if ('returnTo' in next) return seeOther(ctx, next.returnTo);
    // 307 keeps the method and the body: the browser posts what the person sent to where they sent it.
    setConsoleHeaders(ctx);
    ctx.status = 307;
    ctx.set('Location', next.pending.action);
    ctx.body = '';
  });
}
