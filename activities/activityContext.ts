import { Context } from '@temporalio/activity';
import type { Logger } from '../core/observability/logger';

/**
 * The workflow an activity runs for, and its attempt, for log lines; absent when the function
 * is called outside an activity (tests calling it directly).
 */
export function activityContext(): { workflowId?: string; attempt?: number } {
  try {
    const info = Context.current().info;
    return { workflowId: info.workflowExecution?.workflowId, attempt: info.attempt };
  } catch {
    return {};
  }
}

/** A child of the worker's logger bound once to the activity's workflow and attempt. */
export function activityLogger(logger: Logger): Logger {
  const { workflowId, attempt } = activityContext();
  return workflowId ? logger.child({ workflow_id: workflowId, attempt }) : logger;
}
