import { apiFields } from '../apiFields';
import type { DeliveryStatus } from './deliveryStatus';
import type { DeliveryRecord } from './store/records';

/** A delivery record as the API and the console show it (DECISIONS.md "Webhook deliveries"). */
export interface DeliveryView {
  delivery_id: string;
  event_id: string;
  endpoint_id: string;
  job_id: string;
  attempt: number;
  replay: number;
  status: DeliveryStatus;
  response_status: number | null;
  error_code: string | null;
  duration_ms: number | null;
  scheduled_at: string;
  attempted_at: string;
  next_attempt_at: string | null;
}

export function deliveryView(d: DeliveryRecord): DeliveryView {
  return {
    delivery_id: d._id,
    ...apiFields(d, [
      'eventId',
      'endpointId',
      'jobId',
      'attempt',
      'replay',
      'status',
      'responseStatus',
      'errorCode',
      'durationMs',
      'scheduledAt',
      'attemptedAt',
      'nextAttemptAt',
    ]),
  };
}
