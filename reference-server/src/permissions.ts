// Users and their permissions per domain (architecture section 3). A module of its own so that
// deps.ts and auth.ts can both name a user without importing each other.
export type Permission =
  'View' | 'Edit' | 'AttachContacts' | 'DetachContacts' | 'AttachFiles' | 'ModifyFiles' | 'RestrictDownload' | 'Full';
export const PERMISSIONS: readonly Permission[] = [
  'View',
  'Edit',
  'AttachContacts',
  'DetachContacts',
  'AttachFiles',
  'ModifyFiles',
  'RestrictDownload',
  'Full',
];
/** The admin set: every permission except RestrictDownload (architecture section 5, 'a user'). */
export const ADMIN_PERMISSIONS: readonly Permission[] = PERMISSIONS.filter((p) => p !== 'RestrictDownload');

export interface User {
  userId: number;
  name: string;
  grants: Map<string, Set<Permission>>;
}
