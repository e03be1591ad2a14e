// Who asks: what a read needs of the request beyond its parameters.
import type { Deps } from '../deps.js';
import { type User } from '../permissions.js';

export interface RequestContext {
  deps: Deps;
  user: User;
  /** the caller's API token (DownloadURL session token is derived from it) */
  token: string;
}
