// The import graph of the repository's own modules for lint (eslint.config.js): every relative
// import, export-from and dynamic import of a .ts/.mts/.js/.mjs file, type-only imports included.
// import-x/no-cycle skips a type-only import, so a cycle closed by one goes unseen there; here it is
// an edge like any other (a cycle of types is still two modules that cannot be read apart).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** file -> { mtimeMs, imports: [{ file, line }] } */
const cache = new Map();

const EXTENSIONS = ['.ts', '.mts', '.tsx', '.js', '.mjs'];

/** The file a relative specifier names (`./x.js` is `./x.ts` in the source), or undefined. */
export function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  const stem = base.replace(/\.(m?js|m?ts|tsx)$/, '');
  const candidates = [base, ...EXTENSIONS.map((e) => stem + e), ...EXTENSIONS.map((e) => path.join(base, `index${e}`))];
  return candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
}

/** The repository modules `file` imports (relative specifiers only), with the line of each import. */
export function importsOf(file) {
  let mtimeMs;
  try {
    mtimeMs = fs.statSync(file).mtimeMs;
  } catch {
    return [];
  }
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.imports;
  const text = fs.readFileSync(file, 'utf8');
  const info = ts.preProcessFile(text, true, true);
  const lineOf = (pos) => text.slice(0, pos).split('\n').length;
  const imports = [];
  for (const f of info.importedFiles) {
    const to = resolveImport(file, f.fileName);
    if (to && /\.(m?ts|tsx|m?js)$/.test(to)) imports.push({ file: to, line: lineOf(f.pos) });
  }
  cache.set(file, { mtimeMs, imports });
  return imports;
}

/** The shortest chain of imports from `start` back to `target` (files, start first), or undefined. */
export function pathBack(start, target) {
  const prev = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length) {
    const cur = queue.shift();
    for (const { file } of importsOf(cur)) {
      if (file === target) {
        const chain = [cur];
        for (let p = prev.get(cur); p !== undefined; p = prev.get(p)) chain.unshift(p);
        return chain;
      }
      if (!prev.has(file)) {
        prev.set(file, cur);
        queue.push(file);
      }
    }
  }
  return undefined;
}
