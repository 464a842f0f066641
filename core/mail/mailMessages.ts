import escapeHtml from 'escape-html';
/**
 * Every mail the service sends, one function per message, each as plain text and HTML from one
 * description, so both parts always say the same. Links are absolute on AUTH_URL. No message
 * carries a secret other than its own one-time link.
 */
export interface MailMessage {
  subject: string;
  text: string;
  html: string;
}

/** The message names the outbox records (never the content). */
export type MailKind =
  | 'invitation'
  | 'invitation_existing_account'
  | 'password_reset'
  | 'password_changed'
  | 'factor_added'
  | 'factor_removed'
  | 'recovery_code_used'
  | 'api_key_created'
  | 'new_browser_sign_in';

export interface MailOf {
  kind: MailKind;
  message: MailMessage;
}

interface Letter {
  subject: string;
  paragraphs: string[];
  /** The one action of the mail: a button in HTML, the bare URL in text. */
  action?: { label: string; url: string };
  /** Said after the action (how long the link works, what to do if it was not you). */
  after?: string[];
}

const SIGNATURE = '— The talent platform';

function render(letter: Letter): MailMessage {
  const after = letter.after ?? [];
  const text = [...letter.paragraphs, ...(letter.action ? [`${letter.action.label}: ${letter.action.url}`] : []), ...after, SIGNATURE].join('\n\n');
  const p = (t: string) => `<p style="margin:0 0 1em">${escapeHtml(t)}</p>`;
  const html = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(letter.subject)}</title></head>`,
    '<body style="font-family:system-ui,sans-serif;line-height:1.5;color:#222;max-width:36rem;margin:0 auto;padding:1rem">',
    ...letter.paragraphs.map(p),
    letter.action
      ? `<p style="margin:1.5em 0"><a href="${escapeHtml(letter.action.url)}" style="background:#1a56db;color:#fff;padding:.6em 1.2em;border-radius:4px;text-decoration:none">${escapeHtml(letter.action.label)}</a></p>` +
        `<p style="margin:0 0 1em;font-size:.9em;color:#555;word-break:break-all">${escapeHtml(letter.action.url)}</p>`
      : '',
    ...after.map(p),
    p(SIGNATURE),
    '</body></html>',
  ].join('\n');
  return { subject: letter.subject, text, html };
}

function dayAndTime(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function invitationMail(i: { organization: string; inviter: string; link: string; expiresAt: Date }): MailOf {
  return {
    kind: 'invitation',
    message: render({
      subject: `You are invited to ${i.organization} on the talent platform`,
      paragraphs: [
        `${i.inviter} invited you to join ${i.organization} on the talent platform.`,
        'Open the link below to choose your password; then you can sign in to the console and connect AI applications.',
      ],
      action: { label: 'Accept the invitation', url: i.link },
      after: [`The link works once, until ${dayAndTime(i.expiresAt)}. If you did not expect this invitation, ignore this mail.`],
    }),
  };
}

/** To an address that already has an account: it learns of the invitation; the inviter learns nothing more. */
export function invitationExistingAccountMail(i: { organization: string; inviter: string; signInUrl: string }): MailOf {
  return {
    kind: 'invitation_existing_account',
    message: render({
      subject: `You are invited to ${i.organization} on the talent platform`,
      paragraphs: [
        `${i.inviter} invited this address to join ${i.organization} on the talent platform.`,
        'This address already has an account, and an address belongs to one organization. To join, ask them to invite another address of yours; your current account stays as it is.',
      ],
      action: { label: 'Sign in to your account', url: i.signInUrl },
      after: ['If you did not expect this invitation, ignore this mail.'],
    }),
  };
}

export function passwordResetMail(i: { link: string; expiresAt: Date }): MailOf {
  return {
    kind: 'password_reset',
    message: render({
      subject: 'Reset your talent platform password',
      paragraphs: ['Someone asked to reset the password of the talent platform account of this address. If it was you, choose a new password:'],
      action: { label: 'Choose a new password', url: i.link },
      after: [
        `The link works once, until ${dayAndTime(i.expiresAt)}. Choosing a new password signs you out everywhere and disconnects your connected applications.`,
        'If it was not you, ignore this mail: your password stays as it is.',
      ],
    }),
  };
}

export function passwordChangedMail(i: { at: Date; signInUrl: string; resetUrl: string }): MailOf {
  return {
    kind: 'password_changed',
    message: render({
      subject: 'Your talent platform password was changed',
      paragraphs: [
        `The password of your talent platform account was changed on ${dayAndTime(i.at)}. Every browser was signed out and every connected application disconnected.`,
      ],
      action: { label: 'Sign in', url: i.signInUrl },
      after: [`If it was not you, reset your password at once: ${i.resetUrl}, and tell your organization's admin.`],
    }),
  };
}

/** A security notice about the person's own account or their organization: what happened, when, what to do if it was not them. */
export function securityNoticeMail(
  kind: Exclude<MailKind, 'invitation' | 'invitation_existing_account' | 'password_reset' | 'password_changed'>,
  i: { at: Date; what: string; consoleUrl: string },
): MailOf {
  const subjects: Record<typeof kind, string> = {
    factor_added: 'A sign-in method was added to your talent platform account',
    factor_removed: 'A sign-in method was removed from your talent platform account',
    recovery_code_used: 'A recovery code of your talent platform account was used',
    api_key_created: 'A new API key was created in your organization',
    new_browser_sign_in: 'New sign-in to your talent platform account',
  };
  return {
    kind,
    message: render({
      subject: subjects[kind],
      paragraphs: [`${i.what} (${dayAndTime(i.at)}).`],
      action: { label: 'Open the console', url: i.consoleUrl },
      after: ['If it was not you, change your password and tell your organization\u2019s admin.'],
    }),
  };
}
