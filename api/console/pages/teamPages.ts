import type { Context } from 'koa';
import { ALL_PERMISSIONS, type Permission } from '../../../core/keys/permissions';
import { beyondOwn } from '../../../core/keys/handingOn';
import { notFound, Problem } from '../../../core/problems';
import { roleOf } from '../../../core/users/adminSeats';
import { findUserOfOrg, pageOfUsersOfOrg } from '../../../core/users/store';
import type { UserRecord } from '../../../core/users/users';
import { errorNote, html, type Html } from '../../oauth/pageRendering';
import { notAllowed } from '../consoleErrors';
import { dateText, scrollingTable, secretBlock, seeOtherSaying, sendConsolePage, stackingTable, type TableCell } from '../consoleLayout';
import { READ_ONLY_NOTE } from '../pageAccess';
import type { ConsolePages } from '../consolePages';
import { CONSOLE_PATHS, personPath } from '../consolePaths';
import { requireSudoToOpen, type ConsoleVisitor } from '../consoleVisitor';
import { permissionCheckboxes, postForm, postedPermissions, selectInput, textInput } from '../formControls';
import { pageNumber, pager } from '../listPages';
import { pendingInvitations, type InvitationAnswer, type InvitationView } from '../../../core/users/invitations';

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
  return u.passwordHash ? 'active' : 'invited';
}

function requireAdmin(visitor: ConsoleVisitor): void {
  if (visitor.role !== 'admin') throw notAllowed();
}

function ownPermissions(visitor: ConsoleVisitor): Permission[] {
  return ALL_PERMISSIONS.filter((p) => visitor.principal.scopes.includes(p));
}

async function personOf(ctx: Context, visitor: ConsoleVisitor): Promise<UserRecord> {
  const userId = String(ctx.params.user_id);
  const person = userId.length <= 100 ? await findUserOfOrg(visitor.user.orgId, userId) : null;
  if (!person) throw notFound('person');
  return person;
}

function personRow(u: UserRecord, admin: boolean): TableCell[] {
  return [
    { body: html`${u.email}<br /><span class="id">${u._id}</span>`, className: 'wrap name' },
    { body: roleOf(u) },
    { body: html`${u.permissions.map((p, i) => html`${i ? ', ' : ''}<code>${p}</code>`)}`, className: 'wrap' },
    { body: u.lastSignInAt ? dateText(u.lastSignInAt) : 'Never' },
    { body: statusOf(u) },
    { body: admin ? html`<a href="${personPath(u._id)}" aria-label="Edit ${u.email}">Edit</a>` : '', className: 'actions' },
  ];
}

/** A pending invitation's row: the same whether or not the address has an account anywhere. */
function invitationRow(i: InvitationView): Html {
  return html`<tr>
    <td>${i.email}</td>
    <td>${i.role}</td>
    <td class="wrap">${i.permissions.map((p, n) => html`${n ? ', ' : ''}<code>${p}</code>`)}</td>
    <td>${dateText(i.createdAt)}</td>
    <td>Invitation pending</td>
  </tr>`;
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

/** The last active admin's refusal, shown on the person's page; anything else goes to the error pages. */
async function onLastAdmin(ctx: Context, visitor: ConsoleVisitor, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    if (!(err instanceof Problem) || err.code !== 'last_admin') throw err;
    const person = await personOf(ctx, visitor);
    editPage(ctx, visitor, person, 'This is the last active admin of your organization: make another person admin first. Nothing was changed.', 409);
  }
}

export function mountTeamPages(pages: ConsolePages): void {
  pages.list(CONSOLE_PATHS.team, async (ctx, visitor) => {
    const page = pageNumber(ctx.query.page);
    const found = await pageOfUsersOfOrg(visitor.user.orgId, (page - 1) * PEOPLE_PER_PAGE, PEOPLE_PER_PAGE + 1);
    const invitations = await pendingInvitations(visitor.user.orgId, INVITATIONS_SHOWN);
    // A person invited from here shows as their invitation until they set a password, like an
    // invitation of an address that has an account elsewhere (which has no person here).
    const invited = new Set(invitations.map((i) => i.userId));
    const people = found.slice(0, PEOPLE_PER_PAGE).filter((u) => !invited.has(u._id));
    const admin = visitor.role === 'admin';
    sendConsolePage(ctx, {
      title: 'Team',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.team,
      body: html`${admin ? html`<p><a class="button" href="${CONSOLE_PATHS.invite}">Invite a person</a></p>` : html`<p class="note">${READ_ONLY_NOTE}</p>`}
      ${stackingTable(
        'Team',
        ['Email', 'Role', 'Permissions', 'Last sign-in', 'Status', 'Actions'],
        people.map((u) => personRow(u, admin)),
      )}
      ${pager(CONSOLE_PATHS.team, 'Pages of people', page, found.length > PEOPLE_PER_PAGE)}
      ${
        invitations.length && page === 1
          ? html`<h2>Invitations</h2>
              ${scrollingTable('Invitations', ['Email', 'Role', 'Permissions', 'Invited', 'Status'], invitations.map(invitationRow))}`
          : ''
      }`,
    });
  });

  pages.get(CONSOLE_PATHS.invite, async (ctx, visitor, { now }) => {
    requireAdmin(visitor);
    if (!(await requireSudoToOpen(ctx, visitor, 'console.team.invite', CONSOLE_PATHS.invite, now()))) return;
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
    const result = await road.run(ctx, visitor, 'console.team.invite', { body });
    const invitation = result.body as InvitationAnswer;
    sendConsolePage(
      ctx,
      {
        title: 'Invitation created',
        visitor: visitor.layout,
        current: CONSOLE_PATHS.team,
        status: html`<strong>${invitation.email}</strong> is invited as ${invitation.role}. Send them this one-time setup link; it is shown only this once and
          works until ${dateText(invitation.setup_expires_at)}.`,
        body: html`${secretBlock(invitation.setup_url, 'The setup link')}
          <p><a href="${CONSOLE_PATHS.team}">Back to Team</a></p>`,
      },
      201,
    );
  });

  pages.get('/console/team/:user_id', async (ctx, visitor) => {
    const person = await personOf(ctx, visitor);
    requireAdmin(visitor);
    editPage(ctx, visitor, person, null);
  });

  pages.post('/console/team/:user_id', async (ctx, visitor, form, { road }) => {
    const person = await personOf(ctx, visitor);
    const userId = person._id;
    requireAdmin(visitor);
    await onLastAdmin(ctx, visitor, async () => {
      await road.run(ctx, visitor, 'console.team.update', {
        params: { user_id: userId },
        body: { role: form.get('role') ?? '', permissions: postedPermissions(form, 'permissions', ownPermissions(visitor)) },
      });
      seeOtherSaying(ctx, CONSOLE_PATHS.team, `Saved: ${person.email}'s role and permissions are changed.`);
    });
  });

  pages.post('/console/team/:user_id/disable', async (ctx, visitor, _form, { road }) => {
    const person = await personOf(ctx, visitor);
    requireAdmin(visitor);
    await onLastAdmin(ctx, visitor, async () => {
      await road.run(ctx, visitor, 'console.team.disable', { params: { user_id: person._id }, body: {} });
      seeOtherSaying(ctx, CONSOLE_PATHS.team, `${person.email} is disabled: signed out everywhere, and every application they connected is disconnected.`);
    });
  });
}
