// The control catalogue: behaviours the specification allows but the reference server does not
// show. The suite must pass every core requirement through each of them (a failure is a false alarm).
import type { Control } from '../fault.js';
import { AUTH_CONTROLS } from './auth.js';
import { DOMAIN_CONTROLS } from './domains.js';
import { ERROR_CONTROLS } from './errors.js';
import { FILE_CONTROLS } from './files.js';
import { LINK_CONTROLS } from './links.js';
import { PROPOSAL_CONTROLS } from './proposals.js';
import { PROVIDER_STATE_CONTROLS } from './provider-states.js';
import { QUERY_CONTROLS } from './query.js';
import { SHAPE_CONTROLS } from './shape.js';

export const CONTROLS: readonly Control[] = [
  ...SHAPE_CONTROLS,
  ...ERROR_CONTROLS,
  ...DOMAIN_CONTROLS,
  ...QUERY_CONTROLS,
  ...FILE_CONTROLS,
  ...LINK_CONTROLS,
  ...PROPOSAL_CONTROLS,
  ...AUTH_CONTROLS,
  ...PROVIDER_STATE_CONTROLS,
];

export function controlByName(name: string): Control | undefined {
  return CONTROLS.find((c) => c.name === name);
}
