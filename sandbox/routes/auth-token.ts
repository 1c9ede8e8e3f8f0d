// POST {auth_url}/oauth/token (spec: Authentication).
import { ApiError } from '../core/api-error';
import { ObjectReader } from '../core/input-validation';
import { ok, type RouteModule } from '../core/route-module';
import { issueToken } from '../core/token-service';
import { SEEDED_CLIENT_WITHOUT_CALENDAR_ROLE } from '../core/seed-data';

export const TOKEN_PATH = '/auth/oauth/token';
export const REQUIRED_SCOPE = 'app:api';

export const authTokenRoutes: RouteModule = {
  name: 'auth-token',
  routes: [
    {
      method: 'POST',
      path: TOKEN_PATH,
      handler: (ctx) => {
        const body = ObjectReader.body(ctx.body);
        const clientId = body.string('client_id', { required: true });
        const clientSecret = body.string('client_secret', { required: true });
        const grantType = body.string('grant_type', { required: true });
        const scopes = body.string('auth_scopes', { required: true });
        const audience = body.string('audience', { required: true });
        body.finish('The token request is invalid.');
        const clients = [ctx.credentials, SEEDED_CLIENT_WITHOUT_CALENDAR_ROLE];
        const client = clients.find((c) => c.client_id === clientId && c.client_secret === clientSecret);
        if (!client) {
          throw new ApiError(401, 'unauthorized', 'unauthorized', { rawBody: { code: 401, message: 'unauthorized' } });
        }
        const problems = [];
        if (grantType !== 'client_credentials') problems.push({ name: 'grant_type', reason: 'must be client_credentials' });
        if (scopes !== REQUIRED_SCOPE) problems.push({ name: 'auth_scopes', reason: `must be ${REQUIRED_SCOPE}` });
        if (audience !== ctx.credentials.audience) problems.push({ name: 'audience', reason: 'is not the audience of this API' });
        if (problems.length > 0) throw new ApiError(400, 'bad_request', 'The token request is invalid.', { invalidParams: problems });
        const ttl = ctx.faults().token_ttl_seconds;
        const now = ctx.clock.now();
        // exp is rounded up to the second, so a token is valid for at least `ttl` seconds.
        const token = issueToken(ctx.store.data.token_signing_key, {
          sub: client.client_id,
          aud: ctx.credentials.audience,
          scope: REQUIRED_SCOPE,
          iat: Math.floor(now / 1000),
          exp: Math.ceil((now + ttl * 1000) / 1000),
        });
        return ok({ access_token: token, expires_in: ttl, token_type: 'Bearer' }, { 'cache-control': 'no-store' });
      },
    },
  ],
};
