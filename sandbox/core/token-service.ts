// Issues and verifies JWT-shaped bearer tokens (HS256 over the store's signing key). Any number of
// unexpired tokens are valid at once; a token survives a sandbox restart with the same state file.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { ApiError, unauthorized } from './api-error';

export interface TokenClaims {
  sub: string;
  aud: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

export function issueToken(signingKey: string, claims: Omit<TokenClaims, 'jti'>): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64url(JSON.stringify({ ...claims, jti: randomUUID() }));
  const signature = createHmac('sha256', signingKey).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

/** Returns the claims, or throws 401 (missing/invalid) or 403 authorization_error (expired). */
export function verifyBearer(authorization: string | undefined, signingKey: string, audience: string, nowMs: number): TokenClaims {
  if (!authorization) throw unauthorized('The Authorization header with a bearer token is missing.');
  const m = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  if (!m) throw unauthorized('The Authorization header must be "Bearer <access token>".');
  const parts = m[1].split('.');
  if (parts.length !== 3) throw unauthorized('The bearer token is not valid.');
  const [header, payload, signature] = parts;
  const expected = createHmac('sha256', signingKey).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw unauthorized('The bearer token is not valid.');
  }
  let claims: TokenClaims;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenClaims;
  } catch {
    throw unauthorized('The bearer token is not valid.');
  }
  if (claims.aud !== audience) throw unauthorized('The bearer token was issued for another audience.');
  if (typeof claims.exp !== 'number' || nowMs >= claims.exp * 1000) {
    throw new ApiError(403, 'authorization_error', 'The access token has expired; request a new one.');
  }
  return claims;
}
