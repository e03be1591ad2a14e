// The expectation that failed, as the reports show it: the assertion's message, expected, actual and
// diff, and the suite's source line it failed on.
import fs from 'node:fs';
import path from 'node:path';
import { relFile, ROOT } from '../paths.js';
import type { Expectation } from './results.js';

/** An error as vitest reports it (TestError), reduced to what the model needs. */
export interface ReportedError {
  name?: string;
  message?: string;
  expected?: unknown;
  actual?: unknown;
  diff?: string;
  stack?: string;
  stacks?: ReadonlyArray<{ file?: string; line?: number; column?: number; method?: string }>;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}… [${s.length - max} more characters]` : s;
}

function asText(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

const sourceCache = new Map<string, string[] | null>();
function sourceLine(file: string, line: number): string | undefined {
  const abs = path.isAbsolute(file) ? file : path.join(ROOT, file);
  if (!sourceCache.has(abs)) {
    try {
      sourceCache.set(abs, fs.readFileSync(abs, 'utf8').split(/\r?\n/));
    } catch {
      sourceCache.set(abs, null);
    }
  }
  const text = sourceCache.get(abs)?.[line - 1]?.trim();
  return text ? clip(text, 300) : undefined;
}

/**
 * The expectation that failed, from vitest's error: message, expected/actual/diff (assertions),
 * and the first stack frame outside the harness and node_modules (the suite's line).
 */
export function expectationOf(e: ReportedError, testFile?: string): Expectation | undefined {
  const message = stripAnsi(e.message ?? '')
    .split('\n')[0]
    .trim();
  if (!message) return undefined;
  const out: Expectation = { message };
  if (e.name) out.errorName = e.name;
  const expected = asText(e.expected);
  const actual = asText(e.actual);
  if (expected !== undefined) out.expected = clip(stripAnsi(expected), 4000);
  if (actual !== undefined) out.actual = clip(stripAnsi(actual), 4000);
  if (e.diff) out.diff = clip(stripAnsi(e.diff), 6000);
  const frames = e.stacks ?? [];
  const isOwn = (f: string) => !/node_modules|[\\/]conformance[\\/]src[\\/]/.test(f);
  const frame =
    frames.find((f) => f.file && testFile && relFile(f.file) === testFile) ??
    frames.find((f) => f.file && isOwn(f.file) && f.line);
  if (frame?.file && frame.line) {
    out.location = `${relFile(frame.file)}:${frame.line}${frame.column ? `:${frame.column}` : ''}`;
    const src = sourceLine(frame.file, frame.line);
    if (src) out.source = src;
  }
  return out;
}
