// Types of the provider states' params, from spec/generated/provider-states.ts (generated from
// spec/provider-states.yaml), for suite code that builds params before calling `t.given`.
import type { components, ProviderStates } from '../../../spec/generated/provider-states.js';

export type Permission = components['schemas']['Permission'];
/** Permissions per domain, as the state 'a user' takes them. */
export type Grants = Record<string, Permission[]>;

/**
 * Every permission that opens rather than restricts (RestrictDownload restricts). Which permission
 * makes a domain accessible is not shown (View is the reference's choice, DOM-009), so core tests
 * that need access grant them all.
 */
export const FULL_ACCESS: Permission[] = [
  'View',
  'Edit',
  'AttachContacts',
  'DetachContacts',
  'AttachFiles',
  'ModifyFiles',
  'Full',
];
export type ProposalType = components['schemas']['ProposalType'];
export type ProposalParams = ProviderStates['a proposal']['params'];
export type FileParams = ProviderStates['a file']['params'];
