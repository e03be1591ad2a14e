// The "All options" table of the vendor guide (conformance/README.md), generated from the table of
// run options (model/options.ts) as `conformance run --help` is, so the guide cannot state another
// default than the CLI does (`npm run docs:options` rewrites it; conformance/test/option-docs.test.ts
// fails while it is stale).
import { RUN_OPTIONS } from '../model/options.js';

const START = '<!-- run-options:start (generated from conformance/src/model/options.ts; npm run docs:options) -->';
const END = '<!-- run-options:end -->';

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** One row per option of `conformance run`: flag, variable, config-file key, help with its default. */
export function optionsMarkdown(): string {
  const rows = RUN_OPTIONS.flatMap((r) => {
    if (!('flag' in r) || !r.flag) return [];
    const help = 'default' in r && r.default !== undefined ? r.help.replace('{default}', String(r.default)) : r.help;
    const env = 'env' in r && r.env ? `\`${r.env}\`` : '';
    const config = 'config' in r && r.config === false ? '' : `\`${kebab(r.key)}\``;
    return [`| \`${cell(r.flag)}\` | ${env} | ${config} | ${cell(help)} |`];
  });
  return [START, '| option | environment | config file | meaning |', '|---|---|---|---|', ...rows, END].join('\n');
}

/** `text` with its options table replaced by the current one (throws when the markers are missing). */
export function withOptionsTable(text: string): string {
  const a = text.indexOf('<!-- run-options:start');
  const b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error('the run-options markers are missing');
  return `${text.slice(0, a)}${optionsMarkdown()}${text.slice(b + END.length)}`;
}
