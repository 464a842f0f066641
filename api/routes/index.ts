import type { RouteSpec } from '../routeSpec';
import { contactRetrievalJobRoutes } from './contactRetrievalJobs';
import { jobResultRoutes } from './jobResults';
import { operationalLimitsRoutes } from './operationalLimits';
import { webhookDeliveryRoutes } from './webhookDeliveries';
import { webhookEndpointRoutes } from './webhookEndpoints';
import { whoamiRoutes } from './whoami';

/** Every /v1 route, one module per resource; the OpenAPI document is built from this list. */
export const v1Routes: RouteSpec[] = [...whoamiRoutes, ...webhookEndpointRoutes, ...webhookDeliveryRoutes, ...contactRetrievalJobRoutes, ...jobResultRoutes, ...operationalLimitsRoutes];
