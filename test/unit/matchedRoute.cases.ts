import { matchedRoute } from '../../api/matchedRoute';

describe('the route an access log names', () => {
  const routerUse = { path: '(?:\\/|$)', methods: [] };
  const whoami = { path: '/v1/whoami', methods: ['HEAD', 'GET'] };
  const endpoint = { path: '/v1/webhook-endpoints/:id', methods: ['GET'] };
  const endpointDelete = { path: '/v1/webhook-endpoints/:id', methods: ['DELETE'] };

  test('the route for this method, not the router middleware pattern matched beside it', () => {
    expect(matchedRoute([routerUse, whoami], 'GET')).toBe('/v1/whoami');
    expect(matchedRoute([whoami, routerUse], 'HEAD')).toBe('/v1/whoami');
    expect(matchedRoute([routerUse, endpoint, endpointDelete], 'DELETE')).toBe('/v1/webhook-endpoints/:id');
  });

  test('nothing when no route serves the method or nothing matched', () => {
    expect(matchedRoute([routerUse, whoami], 'POST')).toBeUndefined();
    expect(matchedRoute([routerUse], 'GET')).toBeUndefined();
    expect(matchedRoute(undefined, 'GET')).toBeUndefined();
  });
});
