// Recorded traffic judged as a library call: HAR files → the results of a run (the report set's
// model) and what the recording showed. `conformance verify-traffic` prints and writes them;
// scripts/traffic-faults.ts reads them directly.
import { loadCatalogue } from '../spec/catalogue.js';
import { loadOpenApi } from '../spec/openapi.js';
import { EXIT, type RunResults } from '../report/results.js';
import { baseUrlFromConfig, bindingsFromConfig } from './bindings-file.js';
import { trafficResults } from './report.js';
import { verifyTraffic, type Verification } from './verify.js';
import { specVersion, suiteVersion } from '../model/versions.js';

export interface VerifyFilesOptions {
  /** a config file whose `bindings:` name the token header and query parameters (as for run) */
  config?: string;
  /** the implementation's origin and path prefix (else the config's `baseUrl`, else chosen from the traffic) */
  baseUrl?: string;
  keepCredentials?: boolean;
  keepContents?: boolean;
  targetLabel?: string;
}

export interface TrafficVerdict {
  results: RunResults;
  /** exchanges of the interface in the files, and HAR entries read */
  exchanges: number;
  entries: number;
  observed: { observed: number; testable: number };
  /** the implementation's base, HAR entries not of it, and what was left unjudged for want of evidence */
  base?: string;
  notInterface: number;
  duplicates: number;
  unjudged: Verification['unjudged'];
  /** every judgement of a rule: the requirements it names together, passed or failed (bundle/rejudge.ts) */
  judgements: Array<
    Pick<Verification['judgements'][number], 'rule' | 'requirements' | 'ok' | 'message'> & { sources: string[] }
  >;
  /** what to record to observe more */
  toRecord: string[];
}

/** Judges the HAR `files` together, in recorded order. No exchange of the interface: verdict error, exit 2. */
export function verifyTrafficFiles(files: string[], o: VerifyFilesOptions = {}): TrafficVerdict {
  const catalogue = loadCatalogue();
  const bindings = bindingsFromConfig(o.config);
  const startedAt = new Date();
  const baseUrl = o.baseUrl ?? baseUrlFromConfig(o.config);
  const v = verifyTraffic(files, { index: loadOpenApi(), bindings, ...(baseUrl ? { baseUrl } : {}) });
  const r = trafficResults(v, {
    catalogue,
    suiteVersion: suiteVersion(),
    specVersion: specVersion(catalogue, () => loadOpenApi().version),
    tokenHeader: bindings.tokenHeader,
    tokenPrefix: bindings.tokenPrefix,
    startedAt,
    keepCredentials: o.keepCredentials,
    keepContents: o.keepContents,
    targetLabel: o.targetLabel,
  });
  if (v.exchanges.length === 0) {
    r.results.exitCode = EXIT.usage;
    r.results.verdict = 'error';
  }
  return {
    results: r.results,
    exchanges: v.exchanges.length,
    entries: v.entries,
    observed: r.observed,
    toRecord: r.toRecord,
    ...(v.base !== undefined ? { base: v.base } : {}),
    notInterface: v.notInterface,
    duplicates: v.duplicates,
    unjudged: v.unjudged,
    judgements: v.judgements.map((j) => ({
      rule: j.rule,
      requirements: j.requirements,
      ok: j.ok,
      message: j.message,
      sources: j.exchanges.map((x) => x.source),
    })),
  };
}
