// Types of the vendor client (index.mjs): the paths, components and operations generated from
// spec/openapi.yaml, and an openapi-fetch client typed by them.
import type { Client } from 'openapi-fetch';
import type { paths } from '../../spec/generated/openapi.js';

export type { paths, components, operations } from '../../spec/generated/openapi.js';

export declare const DEFAULT_TOKEN_HEADER: string;
export declare const DEFAULT_TOKEN_PREFIX: string;

export interface ServiceClientOptions {
  /** Base URL of the implementation, e.g. http://localhost:8080 */
  baseUrl: string;
  /** Session token sent on every request (or a function giving it); omit for no credentials. */
  token?: string | null | (() => string | null | undefined | Promise<string | null | undefined>);
  /** Header carrying the token (default Token, the reference server's). */
  tokenHeader?: string;
  /** Text before the token in that header (default empty; e.g. "Bearer "). */
  tokenPrefix?: string;
  fetch?: (input: Request) => Promise<Response>;
}

/** An openapi-fetch client typed by the interface's OpenAPI paths. */
export declare function createServiceClient(options: ServiceClientOptions): Client<paths>;
