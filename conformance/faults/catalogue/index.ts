// The fault catalogue: every named fault, each imitating one realistic implementation bug and
// mapped to the core, testable requirements of spec/requirements.yaml it violates.
import type { Area, Fault } from '../fault.js';
import { FILE_FAULTS } from './files.js';
import { LINK_FAULTS } from './links.js';
import { PROPOSAL_FAULTS } from './proposals.js';
import { RECORD_FAULTS } from './records.js';

export const FAULTS: readonly Fault[] = [...RECORD_FAULTS, ...FILE_FAULTS, ...LINK_FAULTS, ...PROPOSAL_FAULTS];

export function faultByName(name: string): Fault | undefined {
  return FAULTS.find((f) => f.name === name);
}

export function faultsByArea(): Map<Area, Fault[]> {
  const out = new Map<Area, Fault[]>();
  for (const f of FAULTS) out.set(f.area, [...(out.get(f.area) ?? []), f]);
  return out;
}
