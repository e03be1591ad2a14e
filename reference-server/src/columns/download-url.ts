// DownloadURL (spec 4.3): a web-application link computed per row, empty for external files and
// for a user restricted from downloads, and a server error while enhanced session ID security is off.
import { createHash } from 'node:crypto';
import { can } from '../auth.js';
import type { Deps } from '../deps.js';
import { jsonString, ResponseError } from '../errors.js';
import { type User } from '../permissions.js';
import type { RequestContext } from './request-context.js';

const OBJECT_REFERENCE_NOT_SET = 'Object reference not set to an instance of an object.';

/** DownloadURL is answered only with enhanced session ID security on (a runtime setting). */
// REQ: FILE-017
// REQ: FILE-020
export function requireDownloadUrls(deps: Deps): void {
  if (!deps.settings.enhancedSessionIDSecurity) {
    throw new ResponseError(
      (c) => jsonString(c, 500, OBJECT_REFERENCE_NOT_SET),
      'DownloadURL with enhanced session ID security off',
    );
  }
}

export function isDownloadRestricted(user: User): boolean {
  return can(user, 'File', 'RestrictDownload') && !can(user, 'File', 'Full');
}

/** DownloadURL: relative web-application link; empty for external files and for users with
 * RestrictDownload without Full. */
// REQ: FILE-013
// REQ: FILE-015
// REQ: FILE-016
// REQ: FILE-014 — a web-application link (used with a web session), not an API path.
// REQ: AUTH-009
export function downloadUrl(ctx: RequestContext, r: Record<string, unknown>, restricted: boolean): string {
  if (restricted) return '';
  if (r.__xrep !== null && r.__xrep !== undefined) return '';
  if (typeof r.__xurl === 'string' && r.__xurl !== '') return '';
  const fileId = Number(r.__fid);
  const session = createHash('sha256').update(`${ctx.token}:${fileId}`).digest('base64url').slice(0, 32);
  return `Download.aspx?FileID=${fileId}&SessionToken=${session}`;
}
