import { Schema, type Connection } from 'mongoose';
import { boundModel } from '../store/boundModel';

export interface OrganizationRecord {
  _id: string;
  name: string;
  /** A mirror of the ledger head for display (core/credits); the ledger is the truth. */
  creditBalance: number;
  /** Organization spending budget mirrored from the ledger head; null when none is set. */
  budgetRemaining: number | null;
  /** Search sources enabled besides the built-in pool. */
  enabledSources: string[];
  /** Everyone must have a second factor; absent on documents written before the policy existed: false. */
  requireSecondFactor?: boolean;
  /** The ledger entry the credit mirror was copied from; absent before the first. */
  creditSeq?: number;
  createdAt?: Date;
  updatedAt?: Date;
}

export interface WorkspaceRecord {
  _id: string;
  orgId: string;
  name?: string | null;
  createdAt?: Date;
  updatedAt?: Date;
}

/** Whose an application is; null (or absent) for the organization's own, where its keys go. */
export type ApplicationHolder = 'person' | 'm2m_client';

export interface ApplicationRecord {
  _id: string;
  orgId: string;
  name?: string | null;
  holder?: ApplicationHolder | null;
  createdAt?: Date;
  updatedAt?: Date;
}

/** Organization: owns credits, budgets and limits (DECISIONS.md "Identity"). */
const organizationSchema = new Schema<OrganizationRecord>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    creditBalance: { type: Number, required: true, default: 0, min: 0 },
    /** Organization-level spending budget; null means none set. */
    budgetRemaining: { type: Number, default: null },
    /** Search sources enabled for this organization besides the built-in pool. */
    enabledSources: { type: [String], default: [] },
    /** Everyone of the organization must have a second factor (core/tenancy/securityPolicy.ts). */
    requireSecondFactor: { type: Boolean, default: false },
  },
  { timestamps: true, versionKey: false },
);
const workspaceSchema = new Schema<WorkspaceRecord>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true, index: true },
    name: { type: String, default: null },
  },
  { timestamps: true, versionKey: false },
);
const applicationSchema = new Schema<ApplicationRecord>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true, index: true },
    name: { type: String, default: null },
    // Whose application it is: null for the organization's own (its keys go there), `person` for
    // a person's tool-server sign-ins, `m2m_client` for an M2M client's tokens.
    holder: { type: String, default: null },
  },
  { timestamps: true, versionKey: false },
);

/** The area's models on the root's connection. */
export function tenancyModels(connection: Connection) {
  return {
    organizations: boundModel<OrganizationRecord>(connection, 'Organization', organizationSchema, 'organizations'),
    workspaces: boundModel<WorkspaceRecord>(connection, 'Workspace', workspaceSchema, 'workspaces'),
    applications: boundModel<ApplicationRecord>(connection, 'Application', applicationSchema, 'applications'),
  };
}
