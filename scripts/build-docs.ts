/**
 * Builds one offline HTML page of the interface (`npm run docs` -> reports/spec/index.html).
 *
 * spec/openapi.yaml is copied to a temporary file in which every operation's description gains a
 * table of its `x-requirements` (ID, level, one-line statement from spec/requirements.yaml); Redocly
 * `build-docs --inlineBundle` then renders that copy with the Redoc scripts embedded, so the page
 * needs no network. The source YAML is not modified.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import YAML from 'yaml';
import { ROOT } from '../spec/paths.js';

const OUTPUT = join(ROOT, 'reports', 'spec', 'index.html');
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

interface Requirement {
  id: string;
  level: 'core' | 'implementation-defined';
  statement: string;
  testable: boolean;
  retired?: boolean;
}

const escapeCell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

export function requirementsTable(ids: string[], byId: Map<string, Requirement>): string {
  const rows = ids.map((id) => {
    const r = byId.get(id);
    if (!r) throw new Error(`x-requirements names unknown requirement ${id}`);
    const notes = [r.level === 'implementation-defined' ? 'implementation-defined' : 'core'];
    if (!r.testable) notes.push('not testable');
    return `| \`${id}\` | ${notes.join(', ')} | ${escapeCell(r.statement)} |`;
  });
  return [
    '#### Requirements',
    '',
    'Requirements of `spec/requirements.yaml` that govern this operation (`x-requirements`).',
    '',
    '| ID | Level | Requirement |',
    '|---|---|---|',
    ...rows,
  ].join('\n');
}

export function withRequirements(doc: any, reqs: Requirement[]): any {
  const byId = new Map(reqs.map((r) => [r.id, r]));
  const copy = structuredClone(doc);
  for (const item of Object.values<any>(copy.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const ids: string[] = op['x-requirements'] ?? [];
      if (ids.length === 0) continue;
      op.description = `${(op.description ?? '').trimEnd()}\n\n${requirementsTable(ids, byId)}\n`;
    }
  }
  return copy;
}

function main(): void {
  const doc = YAML.parse(readFileSync(join(ROOT, 'spec', 'openapi.yaml'), 'utf8'));
  const reqs: Requirement[] = YAML.parse(readFileSync(join(ROOT, 'spec', 'requirements.yaml'), 'utf8')).requirements;
  const tmp = mkdtempSync(join(tmpdir(), 'rflps-docs-'));
  try {
    const input = join(tmp, 'openapi.json');
    writeFileSync(input, JSON.stringify(withRequirements(doc, reqs), null, 2));
    mkdirSync(dirname(OUTPUT), { recursive: true });
    const bin = join(ROOT, 'node_modules', '.bin', process.platform === 'win32' ? 'redocly.cmd' : 'redocly');
    const res = spawnSync(
      bin,
      [
        'build-docs',
        input,
        '--output',
        OUTPUT,
        '--inlineBundle',
        '--title',
        `${doc.info.title} ${doc.info.version}`,
        '--config',
        join(ROOT, 'redocly.yaml'),
        '--lint-config',
        'off',
      ],
      {
        cwd: ROOT,
        stdio: 'inherit',
        env: {
          ...process.env,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
          REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
        },
      },
    );
    if (res.status !== 0) throw new Error(`redocly build-docs failed (exit ${res.status})`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }

  // Offline check: nothing the page needs to render may come from the network.
  const html = readFileSync(OUTPUT, 'utf8');
  const external = [
    ...html.matchAll(/<(?:script|link|img)\b[^>]*\b(?:src|href)\s*=\s*["'](https?:)?\/\/[^"']+["']/gi),
    ...html.matchAll(/@import\s+url\(\s*["']?(?:https?:)?\/\/[^)]+\)/gi),
  ].map((m) => m[0]);
  if (external.length) {
    console.error(`reports/spec/index.html references external resources:\n  ${external.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`wrote ${OUTPUT} (${Math.round(html.length / 1024)} KiB, no external script, style or font URLs)`);
}

main();
