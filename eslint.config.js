// Lint: the architecture rules of docs/architecture.md as rules a machine checks.
//   - the conformance suite is black box: nothing under conformance/ imports the reference server,
//     the benchmarks or the scripts; the reference server imports no suite code;
//   - no import cycles, type-only imports included (import-x/no-cycle skips those; the local rule
//     no-cycle-with-types, scripts/lint/rules.mjs, follows them);
//   - the folders of conformance/src in one order (local/folder-order, below);
//   - typescript-eslint's recommended rules (formatting is Prettier's job: `prettier --check`, run by
//     `npm run lint`);
//   - no `any` in the conformance suite (conformance/suite/**).
// Unused exports and files are knip's job (`knip`, run by `npm run lint`; knip.json).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import prettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import local from './scripts/lint/rules.mjs';

export default tseslint.config(
  { ignores: ['node_modules/**', 'reports/**', 'dist/**', 'spec/generated/**', '**/*.d.ts', '.stryker-tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.{ts,mjs,js}'],
    plugins: { 'import-x': importX, local },
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        AbortSignal: 'readonly',
        AbortController: 'readonly',
        performance: 'readonly',
      },
    },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
      // the dependencies no-cycle follows are TypeScript too
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      // value imports (import-x), and type-only ones too (local): a cycle of types is still two
      // modules that cannot be read apart
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'local/no-cycle-with-types': 'error',
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './conformance',
              from: ['./reference-server', './bench', './scripts'],
              message: 'the conformance suite is black box: it reaches the reference server only over HTTP',
            },
            {
              target: './reference-server/src',
              from: ['./conformance', './bench', './scripts'],
              message: 'the reference server knows nothing of the suite, the benchmarks or the scripts',
            },
            {
              target: './spec',
              from: ['./reference-server', './conformance', './bench'],
              message: 'the spec depends on nothing but itself',
            },
          ],
        },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The folders of conformance/src, lowest first: a module imports its own folder and those
    // before it. `model` is the floor (the run context and profiles, the options table, bindings,
    // test outcomes and their classification, errors, versions, progress events): every folder may
    // import it, and it imports nothing of the package (the zone below).
    files: ['conformance/src/**/*.ts'],
    rules: {
      'local/folder-order': [
        'error',
        {
          root: 'conformance/src',
          order: [
            'model',
            '',
            'spec',
            'judge',
            'suite-api',
            'report',
            'traffic',
            'bundle',
            'coverage',
            'targets',
            'run',
            'compare',
            'cli',
          ],
        },
      ],
    },
  },
  {
    files: ['conformance/src/model/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './conformance/src/model',
              from: './conformance',
              except: ['./src/model'],
              message: 'the model (conformance/src/model) imports nothing of the package: it is the floor',
            },
            {
              target: './conformance/src/model',
              from: './spec',
              except: ['./generated', './paths.ts'],
              message: 'the model imports of spec/ only the generated types and spec/paths.ts',
            },
            {
              target: './conformance/src/model',
              from: ['./reference-server', './bench', './scripts'],
              message: 'the model imports nothing of the package',
            },
          ],
        },
      ],
    },
  },
  {
    // The suite reads every answer as `unknown` or as a type generated from the OpenAPI document
    // (issue 15): an `any` would let a test read a shape the spec does not document unchecked. One
    // that must stay is disabled on its line with the reason.
    files: ['conformance/suite/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
  {
    // Own lookups (issue 35): in the reference server a name from a request (column, property,
    // field, setting, state) is looked up in a table's own entries only. `TABLE[name]` on a plain
    // object and `name in obj` also find what every object inherits (`constructor`, `toString`,
    // `__proto__`...): `Custom2Code.constructor` passed the coded-property check and reached SQL.
    // Constant tables (ALL_CAPS names) are read with a computed key through own()
    // (reference-server/src/own.ts) or are Maps; a module's string-keyed object-literal table
    // has an ALL_CAPS name, so the first rule sees its reads. reference-server/test/own-lookups.test.ts
    // plants each mistake and checks that lint fails on it.
    files: ['reference-server/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[computed=true][object.name=/^[A-Z][A-Z0-9_]*$/][property.type!='Literal']",
          message:
            'A constant table read with a computed key also finds inherited members (constructor, toString, __proto__): use own(TABLE, key) from own.ts, or a Map.',
        },
        {
          selector: "BinaryExpression[operator='in']",
          message:
            '`key in obj` also finds inherited members (constructor, toString, __proto__): use Object.hasOwn(obj, key), or a Map.',
        },
        {
          selector:
            ":matches(Program, ExportNamedDeclaration) > VariableDeclaration > VariableDeclarator[id.name!=/^[A-Z][A-Z0-9_]*$/][id.typeAnnotation.typeAnnotation.typeName.name='Record'][init.type='ObjectExpression'][init.properties.length>0]",
          message:
            'A string-keyed lookup table is a Map, or a constant with an ALL_CAPS name read through own() (so the computed-read rule sees it).',
        },
      ],
    },
  },
);
