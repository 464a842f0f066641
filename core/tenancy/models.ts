import { Schema, model } from 'mongoose';

/** Organization: owns credits, budgets and limits (DECISIONS.md "Identity"). */
const organizationSchema = new Schema(
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
export const Organization = model('Organization', organizationSchema, 'organizations');

const workspaceSchema = new Schema(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true, index: true },
    name: { type: String, default: null },
  },
  { timestamps: true, versionKey: false },
);
export const Workspace = model('Workspace', workspaceSchema, 'workspaces');

const applicationSchema = new Schema(
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
export const Application = model('Application', applicationSchema, 'applications');
