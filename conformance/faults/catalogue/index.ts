// The fault catalogue: every named fault, each imitating one realistic implementation bug and
// mapped to the core, testable requirements of spec/requirements.yaml it violates. One module per
// area (fault.ts AREAS), listed in that order; each area's canned cases are beside it (<area>.cases.ts).
import type { Area, Fault } from '../fault.js';
import { AUTH_FAULTS } from './auth.js';
import { BIND_FAULTS } from './bind.js';
import { COL_FAULTS } from './col.js';
import { DOM_FAULTS } from './dom.js';
import { FILE_FAULTS } from './file.js';
import { GEN_FAULTS } from './gen.js';
import { LINK_FAULTS } from './link.js';
import { MEM_FAULTS } from './mem.js';
import { PROP_FAULTS } from './prop.js';
import { QRY_FAULTS } from './qry.js';
import { REC_FAULTS } from './rec.js';
import { SCHED_FAULTS } from './sched.js';

export const FAULTS: readonly Fault[] = [
  ...GEN_FAULTS,
  ...DOM_FAULTS,
  ...REC_FAULTS,
  ...COL_FAULTS,
  ...QRY_FAULTS,
  ...FILE_FAULTS,
  ...LINK_FAULTS,
  ...PROP_FAULTS,
  ...BIND_FAULTS,
  ...MEM_FAULTS,
  ...SCHED_FAULTS,
  ...AUTH_FAULTS,
];

export function faultByName(name: string): Fault | undefined {
  return FAULTS.find((f) => f.name === name);
}

export function faultsByArea(): Map<Area, Fault[]> {
  const out = new Map<Area, Fault[]>();
  for (const f of FAULTS) out.set(f.area, [...(out.get(f.area) ?? []), f]);
  return out;
}
