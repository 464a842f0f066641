import { z } from 'zod';
import { OPERATIONS, SCOPE_TYPES, type Scope } from '../../../core/limits/limitTable';
import {
  blockOperation,
  clearLimit,
  existingOverride,
  LimitChangeError,
  readLimitSettings,
  setCap,
  type LimitChangeRequest,
} from '../../../core/limits/limitSettings';
import type { LimitOverride, LimitSettingsDoc } from '../../../core/limits/limitSettingsRecord';
import { limitEntry, type LimitEntry } from '../../../core/limits/operationalLimits';
import { scopeChain } from '../../../core/limits/scopeChain';
import { validationFailed } from '../../../core/problems';
import type { KeyPrincipal } from '../../../core/keys/apiKeys';
import type { RouteInput } from '../../routeSpec';
import { defineConsoleChange } from '../consoleOperation';
import { CONSOLE_PATHS } from '../consolePaths';

/**
 * The console's limit writes (DECISIONS.md "Organization console", SPEC 8.3 rules 2 and 3): a
 * per-minute cap, a block and clearing one, by the core/limits functions the operator CLI calls,
 * as the customer (who only lowers, and clears only what the customer set). A scope of another
 * organization is not found, as an absent one is (core/limits/scopeChain.ts).
 */
const target = z.string().trim().max(100).optional().default('');

const scopeFields = {
  operation: z.enum(OPERATIONS, { message: 'choose an operation' }),
  applies_to: z.enum(SCOPE_TYPES, { message: 'choose what the cap applies to' }),
  target,
};

const capBody = z
  .object({
    ...scopeFields,
    requests_per_minute: z
      .string()
      .trim()
      .regex(/^[0-9]{1,9}$/, 'requests per minute must be a whole number')
      .transform(Number),
  })
  .strict();

const scopeBody = z.object(scopeFields).strict();

type ScopeInput = z.output<typeof scopeBody>;

/** The scope a form names: the organization itself, or the id typed as "Target". */
export function scopeOf(principal: Pick<KeyPrincipal, 'orgId'>, body: ScopeInput): Scope {
  if (body.applies_to === 'organization') return { type: 'organization', id: principal.orgId };
  if (!body.target) throw validationFailed([{ field: 'target', message: 'give the id of the application, key family or key' }]);
  return { type: body.applies_to, id: body.target };
}

/** A refusal of the limit rules as the form's validation message. */
async function underLimitRules<T>(field: string, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (err) {
    if (err instanceof LimitChangeError) throw validationFailed([{ field, message: err.message }], err.message);
    throw err;
  }
}

function overrideValues(operation: string, scope: Scope, o: LimitOverride | undefined): Record<string, unknown> | null {
  if (!o || o.kind === 'cleared') return null;
  return { operation, scope_type: scope.type, scope_id: scope.id, requests_per_minute: o.requestsPerMinute, blocked: o.kind === 'block', source: 'override' };
}

async function overrideBefore(input: RouteInput<ScopeInput, unknown, unknown>): Promise<Record<string, unknown> | null> {
  const scope = scopeOf(input.principal, input.body);
  return overrideValues(
    input.body.operation,
    scope,
    existingOverride(await readLimitSettings(input.deps.stores, input.principal.orgId), input.body.operation, scope),
  );
}

/**
 * The customer's change of the scope the form names, through `change`; a refusal of the limit
 * rules is the validation message of `field`. Answers the scope's limit entry after it.
 */
async function changeLimit(
  { principal, body, config, deps }: RouteInput<ScopeInput, unknown, unknown>,
  field: string,
  change: (request: LimitChangeRequest) => Promise<LimitSettingsDoc>,
): Promise<LimitEntry> {
  const request: LimitChangeRequest = { orgId: principal.orgId, operation: body.operation, scope: scopeOf(principal, body), actor: 'customer', now: deps.now };
  const settings = await underLimitRules(field, () => change(request));
  return limitEntry(settings, request.operation, await scopeChain(deps.stores, request.orgId, request.scope), config.limits.leaseTtlSeconds);
}

function entryValues(entry: LimitEntry): Record<string, unknown> {
  return {
    operation: entry.operation,
    scope_type: entry.scope.type,
    scope_id: entry.scope.id,
    requests_per_minute: entry.requests_per_minute,
    blocked: entry.status === 'denied',
    source: entry.source,
  };
}

/** The audit of a change to one scope's override: the override before it and the entry after. */
function overrideAudit(action: 'limit.cap_set' | 'limit.blocked' | 'limit.cleared') {
  return {
    action,
    target: ({ principal, body }: RouteInput<ScopeInput, unknown, unknown>) => scopeOf(principal, body).id,
    before: overrideBefore,
    after: (_input: unknown, entry: LimitEntry) => entryValues(entry),
  };
}

const setCapOperation = defineConsoleChange({
  operation: 'console.limits.set_cap',
  path: CONSOLE_PATHS.limits,
  summary: 'Set a per-minute cap',
  body: capBody,
  change: (input) =>
    changeLimit(input, 'requests_per_minute', (request) =>
      setCap(input.deps.stores, input.config, { ...request, requestsPerMinute: input.body.requests_per_minute }),
    ),
  audit: overrideAudit('limit.cap_set'),
});

const blockOperationOperation = defineConsoleChange({
  operation: 'console.limits.block',
  path: `${CONSOLE_PATHS.limits}/block`,
  summary: 'Block an operation',
  body: capBody.omit({ requests_per_minute: true }).extend({ requests_per_minute: z.string().optional() }),
  change: (input) => changeLimit(input, 'operation', (request) => blockOperation(input.deps.stores, input.config, request)),
  audit: overrideAudit('limit.blocked'),
});

const clearOperation = defineConsoleChange({
  operation: 'console.limits.clear',
  path: `${CONSOLE_PATHS.limits}/clear`,
  summary: 'Clear a cap or a block',
  body: scopeBody,
  change: (input) => changeLimit(input, 'operation', (request) => clearLimit(input.deps.stores, input.config, request)),
  audit: overrideAudit('limit.cleared'),
});

export const limitOperations = [setCapOperation, blockOperationOperation, clearOperation];
