import type { RouteSpec } from '../routeSpec';
import { whoamiRoutes } from './whoami';

/** Every /v1 route, one module per resource; the OpenAPI document is built from this list. */
export const v1Routes: RouteSpec[] = [...whoamiRoutes];
