// Types of the provider states' params, from spec/generated/provider-states.ts (generated from
// spec/provider-states.yaml), for suite code that builds params before calling `t.given`.
import type { components, ProviderStates } from '../../../spec/generated/provider-states.js';

export type Permission = components['schemas']['Permission'];
/** Permissions per domain, as the state 'a user' takes them. */
export type Grants = Record<string, Permission[]>;
export type ProposalType = components['schemas']['ProposalType'];
export type ProposalParams = ProviderStates['a proposal']['params'];
export type FileParams = ProviderStates['a file']['params'];
