// The suite's tests as vitest collects them, without a target and without running them (list, coverage).
import type { CollectedTest } from '../coverage/gate.js';
import { relFile } from '../paths.js';
import type { ConformanceMeta } from '../suite-api/dsl.js';
import { contextFromEnv, type RunContext } from '../model/context.js';
import { collectSuite } from './vitest-run.js';

export type CollectedConformanceTest = CollectedTest & { meta: ConformanceMeta };

/** Every conformance() test of the suite, and what kept a file or test from being collected. */
export async function collectTests(): Promise<{ tests: CollectedConformanceTest[]; errors: string[] }> {
  const ctx: RunContext = { ...contextFromEnv({}), collectOnly: true };
  const r = await collectSuite({ ctx });
  const tests: CollectedConformanceTest[] = [];
  const errors: string[] = [];
  for (const m of r.testModules) {
    for (const e of m.errors()) errors.push(`${relFile(m.moduleId)}: ${e.name ?? 'Error'}: ${e.message}`);
    for (const t of m.children.allTests()) {
      const meta = t.meta() as ConformanceMeta;
      if (!meta.conformance) {
        errors.push(`${relFile(m.moduleId)}: '${t.name}' is a plain vitest test, not a conformance() test`);
        continue;
      }
      tests.push({
        id: meta.id!,
        title: meta.title!,
        file: relFile(m.moduleId),
        requirements: meta.requirements ?? [],
        profile: meta.profile ?? 'core',
        mutates: meta.mutates ?? false,
        ...(meta.classes ? { classes: meta.classes } : {}),
        meta,
      });
    }
  }
  for (const e of r.unhandledErrors) errors.push(`unhandled: ${(e as Error)?.message ?? String(e)}`);
  return { tests, errors };
}
