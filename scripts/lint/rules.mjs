// The repository's own lint rules (eslint.config.js, plugin `local`):
//   - no-cycle-with-types: no import cycle, type-only imports included (import-x/no-cycle skips
//     them: a cycle closed by `import type` passed it);
//   - folder-order: inside one source root, a module imports only its own folder and the folders
//     below it in a declared order, with no exceptions.
// docs/test/lint-import-graph.test.ts plants a type-only cycle and an upward import and sees both fail.
import path from 'node:path';
import { pathBack, resolveImport } from './import-graph.mjs';

/** The relative import specifiers of the file being linted, with their nodes (from its AST, not the disk). */
function importNodes(program) {
  const out = [];
  for (const n of program.body) {
    if (
      (n.type === 'ImportDeclaration' || n.type === 'ExportNamedDeclaration' || n.type === 'ExportAllDeclaration') &&
      n.source &&
      typeof n.source.value === 'string'
    )
      out.push({ node: n, spec: n.source.value });
  }
  return out;
}

const rel = (f) => path.relative(process.cwd(), f).split(path.sep).join('/');

const noCycleWithTypes = {
  meta: {
    type: 'problem',
    docs: { description: 'no import cycle, type-only imports included' },
    schema: [],
    messages: { cycle: 'import cycle (type-only imports count): {{chain}}' },
  },
  create(context) {
    const file = context.physicalFilename;
    return {
      Program(program) {
        for (const { node, spec } of importNodes(program)) {
          const to = resolveImport(file, spec);
          if (!to) continue;
          const back = pathBack(to, file);
          if (back)
            context.report({ node, messageId: 'cycle', data: { chain: [file, ...back, file].map(rel).join(' -> ') } });
        }
      },
    };
  },
};

const folderOrder = {
  meta: {
    type: 'problem',
    docs: { description: 'a module imports only its own folder and the folders below it' },
    schema: [
      {
        type: 'object',
        properties: {
          root: { type: 'string' },
          order: { type: 'array', items: { type: 'string' } },
        },
        required: ['root', 'order'],
        additionalProperties: false,
      },
    ],
    messages: {
      upward:
        "{{from}} imports {{to}}: folder '{{toFolder}}' is above '{{fromFolder}}' in the order ({{order}}); move the shared part down",
      unplaced: "folder '{{folder}}' of {{root}} has no place in the folder order (eslint.config.js)",
    },
  },
  create(context) {
    const { root, order } = context.options[0];
    const rootDir = path.resolve(root);
    const file = context.physicalFilename;
    if (!file.startsWith(rootDir + path.sep)) return {};
    // '' = the files directly in the root
    const folderOf = (f) => {
      const r = path.relative(rootDir, f).split(path.sep);
      return r.length > 1 ? r[0] : '';
    };
    const within = (f) => path.relative(rootDir, f).split(path.sep).join('/');
    return {
      Program(program) {
        const fromFolder = folderOf(file);
        const fromRank = order.indexOf(fromFolder);
        if (fromRank < 0) {
          context.report({ node: program, messageId: 'unplaced', data: { folder: fromFolder, root } });
          return;
        }
        for (const { node, spec } of importNodes(program)) {
          const to = resolveImport(file, spec);
          if (!to || !to.startsWith(rootDir + path.sep)) continue;
          const toFolder = folderOf(to);
          if (toFolder === fromFolder || order.indexOf(toFolder) < fromRank) continue;
          context.report({
            node,
            messageId: 'upward',
            data: {
              from: within(file),
              to: within(to),
              fromFolder: fromFolder || '(root)',
              toFolder: toFolder || '(root)',
              order: order.map((f) => f || '(root)').join(' < '),
            },
          });
        }
      },
    };
  },
};

export default { rules: { 'no-cycle-with-types': noCycleWithTypes, 'folder-order': folderOrder } };
