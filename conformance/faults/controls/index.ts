// The control catalogue: behaviours the specification allows but the reference server does not
// show. The suite must pass every core requirement through each of them (a failure is a false alarm).
// One module per area (fault.ts AREAS), listed in that order; each area's canned cases are beside it
// (<area>.cases.ts).
import type { Control } from '../fault.js';
import { AUTH_CONTROLS } from './auth.js';
import { BIND_CONTROLS } from './bind.js';
import { COL_CONTROLS } from './col.js';
import { DOM_CONTROLS } from './dom.js';
import { FILE_CONTROLS } from './file.js';
import { GEN_CONTROLS } from './gen.js';
import { LINK_CONTROLS } from './link.js';
import { MEM_CONTROLS } from './mem.js';
import { PROP_CONTROLS } from './prop.js';
import { QRY_CONTROLS } from './qry.js';
import { REC_CONTROLS } from './rec.js';
import { SCHED_CONTROLS } from './sched.js';

export const CONTROLS: readonly Control[] = [
  ...GEN_CONTROLS,
  ...DOM_CONTROLS,
  ...REC_CONTROLS,
  ...COL_CONTROLS,
  ...QRY_CONTROLS,
  ...FILE_CONTROLS,
  ...LINK_CONTROLS,
  ...PROP_CONTROLS,
  ...BIND_CONTROLS,
  ...MEM_CONTROLS,
  ...SCHED_CONTROLS,
  ...AUTH_CONTROLS,
];

export function controlByName(name: string): Control | undefined {
  return CONTROLS.find((c) => c.name === name);
}
