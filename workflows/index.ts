// Every workflow the worker runs. Workflow code is deterministic: timers, signals and the order
// of steps only; side effects live in activities.
export { webhookDelivery } from './webhookDelivery';
export { contactRetrievalWorkflow } from './contactRetrieval';
export { resultRetentionWorkflow } from './retention';
export { storeMaintenanceWorkflow } from './storeMaintenance';
