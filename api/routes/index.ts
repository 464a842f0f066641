import type { RouteSpec } from '../routeSpec';
import { auditEventRoutes } from './auditEvents';
import { candidateRoutes } from './candidates';
import { contactRetrievalJobRoutes } from './contactRetrievalJobs';
import { jobResultRoutes } from './jobResults';
import { operationalLimitsRoutes } from './operationalLimits';
import { personMatchRoutes } from './personMatches';
import { profileRoutes } from './profiles';
import { searchSourceRoutes } from './searchSources';
import { usageRoutes } from './usage';
import { webhookDeliveryRoutes } from './webhookDeliveries';
import { webhookEndpointRoutes } from './webhookEndpoints';
import { whoamiRoutes } from './whoami';

/** Every /v1 route, one module per resource; the OpenAPI document is built from this list. */
export const v1Routes: RouteSpec[] = [
  ...whoamiRoutes,
  ...webhookEndpointRoutes,
  ...webhookDeliveryRoutes,
  ...contactRetrievalJobRoutes,
  ...jobResultRoutes,
  ...operationalLimitsRoutes,
  ...searchSourceRoutes,
  ...candidateRoutes,
  ...profileRoutes,
  ...personMatchRoutes,
  ...auditEventRoutes,
  ...usageRoutes,
];
