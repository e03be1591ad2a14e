// (6) Redocly lint (redocly.yaml: both documents) reports no errors. Same check as `npm run lint:spec`.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../paths.js';

describe('redocly lint', () => {
  it('reports zero errors for spec/openapi.yaml and spec/provider-states.yaml', () => {
    const res = spawnSync(join(ROOT, 'node_modules', '.bin', 'redocly'), ['lint', '--format=json'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
        NO_COLOR: '1',
      },
      timeout: 120_000,
    });
    // One JSON report per API, concatenated.
    const text = res.stdout.slice(Math.max(0, res.stdout.indexOf('{'))).trim();
    expect(text.startsWith('{'), `no JSON output from redocly:\n${res.stdout}\n${res.stderr}`).toBe(true);
    const reports: any[] = JSON.parse(`[${text.replace(/\}\s*\{(?=\s*"totals")/g, '},{')}]`);
    expect(reports.length).toBe(2);
    const errors = reports
      .flatMap((r) => r.problems ?? [])
      .filter((p: any) => p.severity === 'error')
      .map(
        (p: any) =>
          `${p.ruleId}: ${p.message} at ${p.location?.[0]?.source?.ref ?? ''}${p.location?.[0]?.pointer ?? ''}`,
      );
    expect(errors).toEqual([]);
    expect(reports.reduce((n, r) => n + (r.totals?.errors ?? 0), 0)).toBe(0);
    expect(res.status).toBe(0);
  }, 120_000);
});
