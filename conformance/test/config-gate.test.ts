// Run options of the reports side: --baseline, --expected-failures, --target-label (command line,
// CONFORMANCE_* env, config file; files named in a config file are relative to it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../src/spec/catalogue.js';
import { resolveRunOptions } from '../src/run/config.js';
import { UsageError } from '../src/model/errors.js';
import { fakeRun } from './helpers/fake-run.js';

const catalogue = loadCatalogue();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-config-gate-'));
fs.mkdirSync(path.join(tmp, 'ci'), { recursive: true });
fs.writeFileSync(path.join(tmp, 'ci', 'baseline.json'), JSON.stringify(fakeRun()));
fs.writeFileSync(path.join(tmp, 'ci', 'xf.yaml'), '- id: DOM-004\n  reason: vendor ticket 1\n  expires: 2030-01-31\n');

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('baseline, expected failures and target label options', () => {
  it('from the config file, relative to it', () => {
    const cfg = path.join(tmp, 'ci', 'conformance.yaml');
    fs.writeFileSync(cfg, 'baseline: baseline.json\nexpected-failures: xf.yaml\ntarget-label: Acme API 2.3\n');
    const o = resolveRunOptions({ config: cfg }, {}, { catalogue, cwd: tmp });
    expect(o.baselineFile).toBe(path.join(tmp, 'ci', 'baseline.json'));
    expect(o.baseline!.schema).toBe('rflps-conformance-results/1');
    expect(o.expectedFailures).toEqual([{ id: 'DOM-004', reason: 'vendor ticket 1', expires: '2030-01-31' }]);
    expect(o.targetLabel).toBe('Acme API 2.3');
  });

  it('from the environment and the command line, relative to the working directory', () => {
    const o = resolveRunOptions(
      { expectedFailures: 'ci/xf.yaml' },
      { CONFORMANCE_BASELINE: 'ci/baseline.json', CONFORMANCE_TARGET_LABEL: 'x' },
      { catalogue, cwd: tmp },
    );
    expect(o.baselineFile).toBe(path.join(tmp, 'ci', 'baseline.json'));
    expect(o.expectedFailuresFile).toBe(path.join(tmp, 'ci', 'xf.yaml'));
    expect(o.targetLabel).toBe('x');
  });

  it('bad files are usage errors (exit 2)', () => {
    expect(() => resolveRunOptions({ baseline: 'nope.json' }, {}, { catalogue, cwd: tmp })).toThrow(UsageError);
    fs.writeFileSync(path.join(tmp, 'bad.yaml'), '- id: DOM-004\n  reason: r\n  expires: soon\n');
    expect(() => resolveRunOptions({ expectedFailures: 'bad.yaml' }, {}, { catalogue, cwd: tmp })).toThrow(
      /'expires' must be a date/,
    );
  });

  it('none given: no gate', () => {
    const o = resolveRunOptions({}, {}, { catalogue, cwd: tmp });
    expect(o.baseline).toBeUndefined();
    expect(o.expectedFailures).toBeUndefined();
  });
});
