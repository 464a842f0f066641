import { Context } from '@temporalio/activity';

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
