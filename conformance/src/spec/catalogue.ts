// The requirement catalogue (spec/requirements.yaml, or its generated JSON form).
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { createHash } from 'node:crypto';
import { SPEC_DIR } from '../paths.js';
import type { RequirementLevel } from '../model/context.js';

export type { RequirementLevel };

export interface Requirement {
  id: string;
  section: string;
  statement: string;
  level: RequirementLevel;
  testable: boolean;
  reason?: string;
  retired?: boolean;
  operations?: string[];
  /** What the requirement is about, from which the operations it governs are derived (coverage/derive.ts). */
  governs?: { fields?: string[]; parameters?: string[] };
  /** Equivalence classes the spec distinguishes that the requirement must hold on (coverage/partitions.ts). */
  classes?: Record<string, string>;
  /** Classes no test exercises, each with the reason why. */
  untestedClasses?: Record<string, string>;
  /** Operations of `operations` no test exercises for this requirement, each with the reason why. */
  untestedOperations?: Record<string, string>;
  quote?: string;
}

export interface Catalogue {
  version: string;
  requirements: Requirement[];
  byId: Map<string, Requirement>;
}

const AREA_NAMES: Record<string, string> = {
  GEN: 'generic',
  DOM: 'domains',
  REC: 'records',
  COL: 'columns',
  QRY: 'query',
  FILE: 'files',
  LINK: 'links',
  PROP: 'proposals',
  BIND: 'binding',
  MEM: 'members',
  SCHED: 'schedules',
  AUTH: 'auth',
  EVT: 'events',
  LIM: 'limits',
  VER: 'versioning',
};

/** The spec area of a requirement ID (`SCHED-035` → `schedules`). */
export function areaOf(id: string): string {
  const prefix = id.replace(/-.*$/, '');
  return AREA_NAMES[prefix] ?? prefix.toLowerCase();
}

export class CatalogueError extends Error {
  override name = 'CatalogueError';
}

/** Builds a catalogue from parsed YAML/JSON: `{version, requirements: [...]}` or a bare list. */
export function catalogueFrom(doc: unknown): Catalogue {
  const obj = doc as { version?: unknown; requirements?: unknown };
  const list = Array.isArray(doc) ? doc : obj?.requirements;
  if (!Array.isArray(list)) throw new CatalogueError('requirement catalogue has no `requirements` list');
  const requirements: Requirement[] = list.map((r: any) => {
    if (typeof r?.id !== 'string') throw new CatalogueError(`requirement without id: ${JSON.stringify(r)}`);
    return {
      id: r.id,
      section: String(r.section ?? ''),
      statement: String(r.statement ?? ''),
      level: r.level === 'implementation-defined' ? 'implementation-defined' : 'core',
      testable: r.testable !== false,
      reason: r.reason,
      retired: r.retired === true,
      operations: Array.isArray(r.operations) ? r.operations : undefined,
      governs: r.governs && typeof r.governs === 'object' ? governsFrom(r.governs) : undefined,
      classes: stringMap(r.classes),
      untestedClasses: stringMap(r.untestedClasses),
      untestedOperations:
        r.untestedOperations && typeof r.untestedOperations === 'object' && !Array.isArray(r.untestedOperations)
          ? Object.fromEntries(Object.entries(r.untestedOperations).map(([k, v]) => [k, String(v)]))
          : undefined,
      quote: r.quote,
    };
  });
  const byId = new Map(requirements.map((r) => [r.id, r]));
  return { version: String(Array.isArray(doc) ? '' : (obj.version ?? '')), requirements, byId };
}

function governsFrom(g: any): Requirement['governs'] {
  const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : undefined);
  return { fields: list(g.fields), parameters: list(g.parameters) };
}

/** `{key: text}` of the catalogue (classes, untestedClasses), or undefined. */
function stringMap(v: unknown): Record<string, string> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]))
    : undefined;
}

const cache = new Map<string, Catalogue>();

/** The key of spec/generated/requirements.json that holds the hash of the YAML it was made from. */
export const SOURCE_HASH_KEY = 'x-source-sha256';

/** The hash that ties the generated JSON to its YAML source. */
export function sourceHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Loads the catalogue. Prefers spec/generated/requirements.json when it was made from the YAML as it
 * is now (the hash it names matches; hashing takes well under a millisecond, parsing the YAML about
 * half a second of CPU), else parses spec/requirements.yaml. Modification times cannot decide this:
 * a git checkout writes the two files in any order.
 */
export function loadCatalogue(specDir: string = SPEC_DIR): Catalogue {
  const hit = cache.get(specDir);
  if (hit) return hit;
  const yamlFile = path.join(specDir, 'requirements.yaml');
  const jsonFile = path.join(specDir, 'generated', 'requirements.json');
  let doc: unknown;
  try {
    const yamlText = fs.existsSync(yamlFile) ? fs.readFileSync(yamlFile, 'utf8') : undefined;
    const generated = fs.existsSync(jsonFile) ? (JSON.parse(fs.readFileSync(jsonFile, 'utf8')) as unknown) : undefined;
    const fresh =
      generated !== undefined &&
      (yamlText === undefined ||
        (generated as Record<string, unknown> | null)?.[SOURCE_HASH_KEY] === sourceHash(yamlText));
    doc = fresh ? generated : parseYaml(yamlText ?? '');
  } catch (e) {
    throw new CatalogueError(`cannot read the requirement catalogue in ${specDir}: ${(e as Error).message}`);
  }
  const cat = catalogueFrom(doc);
  cache.set(specDir, cat);
  return cat;
}
