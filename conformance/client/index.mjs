// The typed client of the interface for vendors' own tests: openapi-fetch bound to the paths of
// spec/openapi.yaml (types in index.d.ts), sending the session token in the header the spec names.
// Plain JavaScript so that it loads from node_modules without a TypeScript loader.
import createClient from 'openapi-fetch';

/** Header and prefix of the session token (the spec's binding defaults; see conformance.yaml). */
export const DEFAULT_TOKEN_HEADER = 'Token';
export const DEFAULT_TOKEN_PREFIX = '';

/**
 * An openapi-fetch client for the service at `baseUrl`. When `token` is given (a string or a
 * function returning one), every request carries `<tokenHeader>: <tokenPrefix><token>`.
 */
export function createServiceClient({
  baseUrl,
  token,
  tokenHeader = DEFAULT_TOKEN_HEADER,
  tokenPrefix = DEFAULT_TOKEN_PREFIX,
  fetch: fetchImpl,
} = {}) {
  if (!baseUrl) throw new TypeError('createServiceClient: baseUrl is required');
  const client = createClient({ baseUrl: baseUrl.replace(/\/+$/, ''), ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  if (token !== undefined) {
    client.use({
      async onRequest({ request }) {
        const value = typeof token === 'function' ? await token() : token;
        if (value !== null && value !== undefined && !request.headers.has(tokenHeader)) {
          request.headers.set(tokenHeader, `${tokenPrefix}${value}`);
        }
        return request;
      },
    });
  }
  return client;
}
