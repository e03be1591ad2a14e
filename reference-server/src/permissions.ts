// Users and their permissions per domain (architecture section 3). A module of its own so that
// deps.ts and auth.ts can both name a user without importing each other.
// The permissions are the spec's (provider-states.yaml `Permission`, generated).
import { PERMISSIONS, type Permission } from '../../spec/generated/facts.js';

export { PERMISSIONS, type Permission };
/** The admin set: every permission except RestrictDownload (architecture section 5, 'a user'). */
export const ADMIN_PERMISSIONS: readonly Permission[] = PERMISSIONS.filter((p) => p !== 'RestrictDownload');

export interface User {
  userId: number;
  name: string;
  grants: Map<string, Set<Permission>>;
}
