// The links part of the model (spec 2.3, 4.4): which (parent, contact) pairs are linked. A step
// names its parent by primary key or by match field (4.4: both identify the same record), so the
// model is the same for both; a Remove names one parent and touches only that link.

export interface LinkSlot {
  parent: number;
  contact: number;
}

export const slotKey = (s: LinkSlot) => `${s.parent}:${s.contact}`;

/**
 * The relationship a (parent, contact) link is always upserted and removed with: fixed per pair,
 * so the model does not depend on whether the relationship is part of a link's identity (not
 * shown). Some pairs have none; one contact has different relationships to the two parents (2.3:
 * "The same contact can be linked to many parents with different relationships").
 */
export function relationshipIndex(s: LinkSlot): number | undefined {
  const k = (s.parent + 2 * s.contact) % 3;
  return k === 0 ? undefined : k - 1;
}

/** Upsert creates the link or updates the existing one: afterwards exactly one link (LINK-013/014). */
export function applyLinkUpsert(links: Set<string>, s: LinkSlot) {
  links.add(slotKey(s));
}

/** Remove deletes an existing link (LINK-015); removing a link that is not there changes nothing. */
export function applyLinkRemove(links: Set<string>, s: LinkSlot): boolean {
  return links.delete(slotKey(s));
}

/** The parents a contact must be linked to, exactly once each. */
export function linkedParents(links: Set<string>, contact: number, parents: number): number[] {
  const out: number[] = [];
  for (let p = 0; p < parents; p++) if (links.has(slotKey({ parent: p, contact }))) out.push(p);
  return out;
}

/** The existing links, sorted (a step picks one by index). */
export function existingSlots(links: Set<string>): LinkSlot[] {
  return [...links].sort().map((k) => {
    const [parent, contact] = k.split(':').map(Number);
    return { parent, contact };
  });
}
