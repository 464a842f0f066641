import type { Context } from 'koa';
import { ALL_PERMISSIONS, type Permission } from '../../../core/keys/permissions';
import { beyondOwn } from '../../../core/keys/handingOn';
import { notFound } from '../../../core/problems';
import { roleOf } from '../../../core/users/adminSeats';
import type { UserStores } from '../../../core/users/store';
import type { UserRecord } from '../../../core/users/users';
import { errorNote } from '../../views/pageRendering';
import { html, type SafeHtml } from '../../views/safeHtml';
import { requireAdmin } from '../consoleErrors';
import { dateText, readOnlyNote, seeOther, seeOtherSaying, sendConsolePage, stackingTable, type TableCell } from '../consoleLayout';
import { mayChange } from '../pageAccess';
import type { ConsolePages } from '../consolePages';
import { CONSOLE_PATHS, personPath } from '../consolePaths';
import { requireSudoToOpen, type ConsoleVisitor } from '../consoleVisitor';
import { permissionCheckboxes, postForm, postedPermissions, selectInput, textInput } from '../formControls';
import { pageNumber, pager } from '../listPages';
import { pendingInvitations } from '../../../core/accounts/invitations';
import type { InvitationRecord } from '../../../core/users/store';
import { actorNames, type ActorName } from '../actorNames';
import { keepingTheForm } from '../formRefusals';

/**
 * "Team", "Invite a person" and "Edit person" (DECISIONS.md "Organization console"). Inviting
 * anyone and changing a role or permissions need sudo mode (sudoOperations.ts: the console road
 * checks it when the form is posted, and "Invite a person" asks already when it is opened);
 * disabling does not. The last active
 * admin's refusal is shown on the person's page.
 */
export const PEOPLE_PER_PAGE = 50;
/** Pending invitations shown on the Team page (an organization has a handful). */
const INVITATIONS_SHOWN = 200;

const ROLE_OPTIONS = [
  { value: 'member', label: 'Member' },
  { value: 'admin', label: 'Admin' },
];

function statusOf(u: UserRecord): string {
  if (u.disabledAt) return 'disabled';
  return u.passwordHash ? 'active' : 'Invitation pending';
}

/** What a change did, said on Team (a fixed set: nothing the request typed is echoed). */
const DONE: Record<string, string> = {
  invited: 'Invitation sent. The link in it works for 7 days.',
  resent: 'Invitation sent again with a new link; the earlier link no longer works.',
  cancelled: 'Invitation cancelled; its link no longer works.',
};

function doneNote(value: unknown): SafeHtml {
  const text = typeof value === 'string' ? DONE[value] : undefined;
  return text ? html`<div class="status" role="status">${text}</div>` : html``;
}

function invitationPath(invitationId: string, action: 'resend' | 'cancel'): string {
  return `/console/team/invitations/${encodeURIComponent(invitationId)}/${action}`;
}

function permissionList(permissions: readonly string[]): SafeHtml {
  return html`${permissions.map((p, n) => html`${n ? ', ' : ''}<code>${p}</code>`)}`;
}

function invitationRow(i: InvitationRecord, csrf: string, admin: boolean, now: Date, inviters: ReadonlyMap<string, ActorName>): TableCell[] {
  const expired = i.expiresAt <= now;
  const inviter = inviters.get(`user:${i.invitedBy}`)?.label ?? 'a former member';
  return [
    { body: i.email, className: 'wrap' },
    { body: i.role },
    { body: permissionList(i.permissions), className: 'wrap' },
    { body: 'Never' },
    { body: html`${expired ? 'Invitation expired' : 'Invitation pending'}<br /><span class="note">invited by ${inviter}</span>`, className: 'wrap' },
    {
      body: admin
        ? html`${postForm(invitationPath(i._id, 'resend'), csrf, html`<button type="submit" aria-label="Resend invitation to ${i.email}">Resend invitation</button>`)}
          ${postForm(
            invitationPath(i._id, 'cancel'),
            csrf,
            html`<button type="submit" class="danger" aria-label="Cancel invitation to ${i.email}">Cancel invitation</button>`,
            {
              confirm: `Cancel the invitation to ${i.email}? Its link stops working.`,
            },
          )}`
        : '',
    },
  ];
}

function ownPermissions(visitor: ConsoleVisitor): Permission[] {
  return ALL_PERMISSIONS.filter((p) => visitor.principal.scopes.includes(p));
}

async function personOf(ctx: Context, stores: UserStores, visitor: ConsoleVisitor): Promise<UserRecord> {
  const userId = String(ctx.params.user_id);
  const person = userId.length <= 100 ? await stores.users.findUserOfOrg(visitor.user.orgId, userId) : null;
  if (!person) throw notFound('person');
  return person;
}

function personRow(u: UserRecord, admin: boolean): TableCell[] {
  return [
    { body: html`${u.email}<br /><span class="id">${u._id}</span>`, className: 'wrap name' },
    { body: roleOf(u) },
    { body: permissionList(u.permissions), className: 'wrap' },
    { body: u.lastSignInAt ? dateText(u.lastSignInAt) : 'Never' },
    { body: statusOf(u) },
    { body: admin ? html`<a href="${personPath(u._id)}" aria-label="Edit ${u.email}">Edit</a>` : '', className: 'actions' },
  ];
}

function editPage(ctx: Context, visitor: ConsoleVisitor, person: UserRecord, message: string | null, status = 200): void {
  const own = ownPermissions(visitor);
  const beyond = beyondOwn(own, { kind: 'person_changed', before: person.permissions });
  sendConsolePage(
    ctx,
    {
      title: 'Edit person',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.team,
      body: html`${errorNote(message)}
        <p><strong>${person.email}</strong> · <code>${person._id}</code> · ${statusOf(person)}</p>
        ${
          beyond.length
            ? html`<p class="note">
                This person has permissions you do not have yourself (${beyond.map((p, i) => html`${i ? ', ' : ''}<code>${p}</code>`)}): only an admin who has
                them, or the service operator, can change their role or permissions or disable them.
              </p>`
            : html`${postForm(
                personPath(person._id),
                visitor.csrf,
                html`${selectInput('role', 'Role', ROLE_OPTIONS, roleOf(person))} ${permissionCheckboxes('Permissions', 'permissions', own, person.permissions)}
                  <button type="submit">Save</button>`,
              )}
              ${
                person.disabledAt
                  ? html`<p>Disabled on ${dateText(person.disabledAt)}.</p>`
                  : html`<h2>Disable</h2>
                      <p>Disabling signs this person out everywhere at once and disconnects every application they connected.</p>
                      ${postForm(`${personPath(person._id)}/disable`, visitor.csrf, html`<button type="submit" class="danger">Disable person</button>`, {
                        confirm: `Disable ${person.email}? They are signed out everywhere at once.`,
                      })}`
              }`
        }
        <p><a href="${CONSOLE_PATHS.team}">Back to Team</a></p>`,
    },
    status,
  );
}

/** A refusal of a change to a person, shown on the person's page with why (the last active admin's in words of its own). */
async function keepingThePersonPage(ctx: Context, stores: UserStores, visitor: ConsoleVisitor, work: () => Promise<void>): Promise<void> {
  await keepingTheForm(work, async (message, status, problem) => {
    const person = await personOf(ctx, stores, visitor);
    const why =
      problem.code === 'last_admin' ? 'This is the last active admin of your organization: make another person admin first. Nothing was changed.' : message;
    editPage(ctx, visitor, person, why, status);
  });
}

export function mountTeamPages(pages: ConsolePages): void {
  pages.list(CONSOLE_PATHS.team, async (ctx, visitor, { now: clock, stores }) => {
    const page = pageNumber(ctx.query.page);
    const found = await stores.users.pageOfUsersOfOrg(visitor.user.orgId, (page - 1) * PEOPLE_PER_PAGE, PEOPLE_PER_PAGE + 1);
    const invitations = page === 1 ? await pendingInvitations(stores, visitor.user.orgId, INVITATIONS_SHOWN) : [];
    // A person made for a pending invitation is shown as that invitation.
    const invited = new Set(invitations.map((i) => i.userId));
    const people = found.slice(0, PEOPLE_PER_PAGE).filter((u) => !invited.has(u._id));
    const admin = mayChange(visitor);
    const now = new Date(clock());
    const inviters = await actorNames(
      stores,
      visitor.user.orgId,
      invitations.map((i) => `user:${i.invitedBy}`),
    );
    sendConsolePage(ctx, {
      title: 'Team',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.team,
      body: html`${doneNote(ctx.query.done)}
      ${admin ? html`<p><a class="button" href="${CONSOLE_PATHS.invite}">Invite a person</a></p>` : readOnlyNote(visitor)}
      ${stackingTable(
        'Team',
        ['Email', 'Role', 'Permissions', 'Last sign-in', 'Status', 'Actions'],
        [...people.map((u) => personRow(u, admin)), ...invitations.map((i) => invitationRow(i, visitor.csrf, admin, now, inviters))],
      )}
      ${pager(CONSOLE_PATHS.team, 'Pages of people', page, found.length > PEOPLE_PER_PAGE)}`,
    });
  });

  pages.get(CONSOLE_PATHS.invite, async (ctx, visitor, { now, stores }) => {
    requireAdmin(visitor);
    if (!(await requireSudoToOpen(ctx, stores, visitor, 'console.team.invite', CONSOLE_PATHS.invite, now()))) return;
    sendConsolePage(ctx, {
      title: 'Invite a person',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.team,
      body: postForm(
        CONSOLE_PATHS.invite,
        visitor.csrf,
        html`${textInput('email', 'Email', { type: 'email', maxLength: 320 })} ${selectInput('role', 'Role', ROLE_OPTIONS, 'member')}
          ${permissionCheckboxes('Permissions', 'permissions', ownPermissions(visitor), [])}
          <p class="note">You can give only permissions you have yourself.</p>
          <button type="submit">Invite</button>`,
      ),
    });
  });

  pages.post(CONSOLE_PATHS.invite, async (ctx, visitor, form, { road }) => {
    requireAdmin(visitor);
    const body = { email: form.get('email') ?? '', role: form.get('role') ?? '', permissions: postedPermissions(form, 'permissions', ownPermissions(visitor)) };
    await road.run(ctx, visitor, 'console.team.invite', { body });
    seeOther(ctx, `${CONSOLE_PATHS.team}?done=invited`);
  });

  for (const [action, operation, done] of [
    ['resend', 'console.team.resend_invitation', 'resent'],
    ['cancel', 'console.team.cancel_invitation', 'cancelled'],
  ] as const) {
    pages.post(`/console/team/invitations/:invitation_id/${action}`, async (ctx, visitor, _form, { road }) => {
      requireAdmin(visitor);
      await road.run(ctx, visitor, operation, { params: { invitation_id: String(ctx.params.invitation_id) }, body: {} });
      seeOther(ctx, `${CONSOLE_PATHS.team}?done=${done}`);
    });
  }

  pages.get('/console/team/:user_id', async (ctx, visitor, { stores }) => {
    const person = await personOf(ctx, stores, visitor);
    requireAdmin(visitor);
    editPage(ctx, visitor, person, null);
  });

  pages.post('/console/team/:user_id', async (ctx, visitor, form, { road, stores }) => {
    const person = await personOf(ctx, stores, visitor);
    const userId = person._id;
    requireAdmin(visitor);
    await keepingThePersonPage(ctx, stores, visitor, async () => {
      await road.run(ctx, visitor, 'console.team.update', {
        params: { user_id: userId },
        body: { role: form.get('role') ?? '', permissions: postedPermissions(form, 'permissions', ownPermissions(visitor)) },
      });
      seeOtherSaying(ctx, CONSOLE_PATHS.team, `Saved: ${person.email}'s role and permissions are changed.`);
    });
  });

  pages.post('/console/team/:user_id/disable', async (ctx, visitor, _form, { road, stores }) => {
    const person = await personOf(ctx, stores, visitor);
    requireAdmin(visitor);
    await keepingThePersonPage(ctx, stores, visitor, async () => {
      await road.run(ctx, visitor, 'console.team.disable', { params: { user_id: person._id }, body: {} });
      seeOtherSaying(ctx, CONSOLE_PATHS.team, `${person.email} is disabled: signed out everywhere, and every application they connected is disconnected.`);
    });
  });
}
