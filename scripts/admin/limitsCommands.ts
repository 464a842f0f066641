import type { Config } from '../../core/config';
import { BASELINE_ENTRY, isLimitEntryName, isOperationName, type LimitEntryName, type OperationName, type Scope } from '../../core/limits/limitTable';
import { blockOperation, clearLimit, readLimitSettings, setCap, setOrganizationRate } from '../../core/limits/limitSettings';
import type { LimitSettingsDoc } from '../../core/limits/limitSettingsRecord';
import { limitEntry } from '../../core/limits/operationalLimits';
import { scopeChain, type ScopeStores } from '../../core/limits/scopeChain';
import { intFlag, optionalFlag, requireFlag, UsageError, type AdminCommand, type Flags } from './command';
import { recordOperatorChange } from './operatorAudit';

/**
 * Operator commands for limits (DECISIONS.md "Operator CLI", SPEC 8.3): per-minute caps and
 * blocks on one operation for the organization, an application, a key family or a key; the
 * organization-wide request rate and in-flight limit, which only the operator may raise.
 * Each prints the resulting limit entry as GET /v1/operational-limits reports it.
 */
const SCOPE_FLAGS = '[--key-id K | --family F | --application A]';

function scopeFromFlags(orgId: string, f: Flags): Scope {
  const given = [
    ['key-id', 'key'],
    ['family', 'key_family'],
    ['application', 'application'],
  ].flatMap(([flag, type]) => {
    const v = optionalFlag(f, flag);
    return v ? [{ type, id: v } as Scope] : [];
  });
  if (given.length > 1) throw new UsageError('give at most one of --key-id, --family, --application');
  return given[0] ?? { type: 'organization', id: orgId };
}

/** `--operation` names an operation (or, where allowed, the baseline entry); a misspelled one is a usage error. */
function operationFlag(f: Flags): OperationName {
  const value = requireFlag(f, 'operation');
  if (!isOperationName(value)) throw new UsageError(`--operation: unknown operation ${value}`);
  return value;
}

function limitEntryFlag(f: Flags): LimitEntryName | undefined {
  const value = optionalFlag(f, 'operation');
  if (value !== undefined && !isLimitEntryName(value)) throw new UsageError(`--operation: unknown operation ${value}`);
  return value;
}

function limitTarget(operation: LimitEntryName, scope: Scope) {
  return { operation, scope_type: scope.type, scope_id: scope.id };
}

async function entryFor(stores: ScopeStores, config: Config, settings: LimitSettingsDoc, orgId: string, operation: LimitEntryName, scope: Scope) {
  return limitEntry(settings, operation, await scopeChain(stores, orgId, scope), config.limits.leaseTtlSeconds);
}

export const limitsCommands: Record<string, AdminCommand> = {
  'limit set': {
    usage: `limit set --org O --operation OP ${SCOPE_FLAGS} --requests-per-minute N`,
    run: async (f, { config, stores, now }) => {
      const orgId = requireFlag(f, 'org');
      const operation = operationFlag(f);
      const scope = scopeFromFlags(orgId, f);
      const rpm = intFlag(f, 'requests-per-minute', { required: true, min: 1 })!;
      const settings = await setCap(stores, config, { orgId, operation, scope, requestsPerMinute: rpm, now });
      await recordOperatorChange(
        { stores, now },
        {
          orgId,
          action: 'limit.cap_set',
          target: scope.id,
          after: { ...limitTarget(operation, scope), requests_per_minute: rpm },
        },
      );
      return entryFor(stores, config, settings, orgId, operation, scope);
    },
  },
  'limit block': {
    usage: `limit block --org O --operation OP ${SCOPE_FLAGS}`,
    run: async (f, { config, stores, now }) => {
      const orgId = requireFlag(f, 'org');
      const operation = operationFlag(f);
      const scope = scopeFromFlags(orgId, f);
      const settings = await blockOperation(stores, config, { orgId, operation, scope, now });
      await recordOperatorChange(
        { stores, now },
        { orgId, action: 'limit.blocked', target: scope.id, after: { ...limitTarget(operation, scope), blocked: true } },
      );
      return entryFor(stores, config, settings, orgId, operation, scope);
    },
  },
  'limit clear': {
    usage: `limit clear --org O --operation OP ${SCOPE_FLAGS}   (OP ${BASELINE_ENTRY} clears the organization-wide rate)`,
    run: async (f, { config, stores, now }) => {
      const orgId = requireFlag(f, 'org');
      requireFlag(f, 'operation');
      const operation = limitEntryFlag(f)!;
      const scope = scopeFromFlags(orgId, f);
      const settings = await clearLimit(stores, config, { orgId, operation, scope, now });
      await recordOperatorChange({ stores, now }, { orgId, action: 'limit.cleared', target: scope.id, after: limitTarget(operation, scope) });
      return entryFor(stores, config, settings, orgId, operation, scope);
    },
  },
  'limit rate': {
    usage: 'limit rate --org O [--requests-per-second N] [--max-concurrency N]',
    run: async (f, { config, stores, now }) => {
      const orgId = requireFlag(f, 'org');
      const change = { requestsPerSecond: intFlag(f, 'requests-per-second', { min: 1 }), maxConcurrency: intFlag(f, 'max-concurrency', { min: 1 }) };
      const settings = await setOrganizationRate(stores, config, orgId, change, now);
      await recordOperatorChange(
        { stores, now },
        {
          orgId,
          action: 'limit.rate_set',
          target: orgId,
          after: { requests_per_second: change.requestsPerSecond ?? null, max_concurrency: change.maxConcurrency ?? null },
        },
      );
      return entryFor(stores, config, settings, orgId, BASELINE_ENTRY, { type: 'organization', id: orgId });
    },
  },
  'limit show': {
    usage: `limit show --org O --operation OP ${SCOPE_FLAGS}`,
    run: async (f, { config, stores }) => {
      const orgId = requireFlag(f, 'org');
      const operation = limitEntryFlag(f) ?? BASELINE_ENTRY;
      return entryFor(stores, config, await readLimitSettings(stores, orgId), orgId, operation, scopeFromFlags(orgId, f));
    },
  },
};
