import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';

/**
 * The Temporal Schedule that runs `storeMaintenanceWorkflow` every hour. An operator finds it
 * under Schedules in the Temporal UI by this id; each run is a workflow `store-maintenance-<time>`.
 */
export const MAINTENANCE_SCHEDULE_ID = 'store-maintenance';
export const MAINTENANCE_WORKFLOW_TYPE = 'storeMaintenanceWorkflow';
export const MAINTENANCE_INTERVAL = '1 hour';

/**
 * Creates the schedule unless it exists: every worker calls this at start-up, the first one
 * creates it, the others find it. Returns whether this call created it.
 */
export async function ensureMaintenanceSchedule(client: Client, opts: { taskQueue: string; scheduleId?: string }): Promise<boolean> {
  const scheduleId = opts.scheduleId ?? MAINTENANCE_SCHEDULE_ID;
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: MAINTENANCE_INTERVAL }] },
      action: { type: 'startWorkflow', workflowType: MAINTENANCE_WORKFLOW_TYPE, taskQueue: opts.taskQueue, workflowId: scheduleId, args: [] },
      // A run still going when the next is due has the same work to do: skip, and never pile up.
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: MAINTENANCE_INTERVAL },
    });
    return true;
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return false;
    throw err;
  }
}
