import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  exampleDir,
  loadSchemaRegistry,
  schemaDir,
  schemaFileForExample,
  schemaIdBase,
} from '../../src/spec/schema-registry.ts';

const { ajv, files } = loadSchemaRegistry();
const load = (file: string) => JSON.parse(readFileSync(join(schemaDir, file), 'utf8'));
const examples = readdirSync(exampleDir).filter((f) => f.endsWith('.json'));

type Node = Record<string, unknown>;
/** Every subschema of a document with its JSON pointer. */
function* subschemas(node: unknown, pointer = ''): Generator<[string, Node]> {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) yield* subschemas(v, `${pointer}/${i}`);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const n = node as Node;
  yield [pointer, n];
  for (const [k, v] of Object.entries(n)) {
    if (k === 'const' || k === 'enum' || k === 'default' || k === 'examples') continue;
    yield* subschemas(v, `${pointer}/${k}`);
  }
}

describe('spec/schemas', () => {
  it('has a JSON Schema for every named resource of both references', () => {
    const required = [
      'custom-launch-create-request.v4',
      'chain-deployment.v1',
      'finality-policy-ref.v1',
      'deployment-evidence.v1',
      'custom-launch-preflight.v2',
      'custom-launch-resource.v4',
      'custom-launch-list.v4',
      'custom-launch-finalized-list.v4',
      'custom-launch-finalized-list.v3',
      'custom-launch-capabilities.v2',
      'l2-initial-buy-usd-quote.v1',
      'launch-coverage.v1',
      'launch-guide.v1',
      'discovery-manifest.v1',
      'api-error',
      'custom-launch-create-request.v3',
      'module-descriptor.v0.1',
      'module-submission-request.v0.1',
      'module-intake-receipt.v0.1',
      'modules-context.v1',
      'modules-capabilities.v1',
      'module-review-status.v1',
      'module-review-capabilities.v1',
      'module-review-export.v1',
      'partner-subkey-request.v1',
      'partner-subkey.v1',
    ];
    for (const name of required) expect(files, name).toContain(`${name}.schema.json`);
  });

  it.each(files)('%s compiles in strict Ajv 2020-12 with full formats', (file) => {
    expect(ajv.getSchema(schemaIdBase + file)).toBeTypeOf('function');
    const doc = load(file);
    expect(doc.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(doc.title).toMatch(/^[A-Z][A-Za-z0-9]+$/);
  });

  it.each(files)('%s closes every object and pins every prefixItems', (file) => {
    const doc = load(file);
    const narrowingContext = /\/(then|else|if|allOf\/\d+|not|contains)(\/|$)/;
    // A $defs entry referenced only from narrowing positions (a `contains` predicate, say) is a condition, not a shape.
    const refsTo = new Map<string, string[]>();
    for (const [pointer, node] of subschemas(doc)) {
      if (typeof node.$ref === 'string' && node.$ref.startsWith('#/$defs/')) {
        const list = refsTo.get(node.$ref.slice(1)) ?? [];
        list.push(pointer);
        refsTo.set(node.$ref.slice(1), list);
      }
    }
    const predicates = [...refsTo].filter(([, at]) => at.every((p) => narrowingContext.test(p))).map(([def]) => def);
    for (const [pointer, node] of subschemas(doc)) {
      const isObject = node.type === 'object' || (node.properties !== undefined && node.type === undefined);
      if (isObject && node.properties !== undefined) {
        const closed = node.additionalProperties === false || node.unevaluatedProperties === false;
        // An if/then/else branch or allOf member that only narrows known properties is closed by its parent.
        const narrowing =
          narrowingContext.test(pointer) || predicates.some((d) => pointer === d || pointer.startsWith(`${d}/`));
        if (!narrowing) expect(closed, `${file}#${pointer} must be closed`).toBe(true);
      }
      if (Array.isArray(node.prefixItems)) {
        expect(node.items, `${file}#${pointer}: prefixItems needs items: false`).toBe(false);
        expect(node.minItems, `${file}#${pointer}: prefixItems needs minItems`).toBe(node.prefixItems.length);
      }
    }
  });

  it('marks designed shapes with a Project design comment', () => {
    const marked = files.filter((f) => JSON.stringify(load(f)).includes('Project design:'));
    // Every resource the references leave partly "not shown" (spec/README.md) carries at least one marker.
    expect(marked.length).toBeGreaterThanOrEqual(files.length - 3);
  });
});

describe('spec/examples', () => {
  const requestSchemas = [
    'custom-launch-create-request.v4.schema.json',
    'custom-launch-create-request.v3.schema.json',
    'module-submission-request.v0.1.schema.json',
    'partner-subkey-request.v1.schema.json',
  ];
  it.each(requestSchemas)('%s has a complete example', (schemaFile) => {
    expect(examples.map(schemaFileForExample)).toContain(schemaFile);
  });

  it('has the V4 create example at the documented path', () => {
    expect(examples).toContain('custom-launch-create-request.v4.json');
  });

  it.each(examples)('%s validates against its schema', (example) => {
    const validate = ajv.getSchema(schemaIdBase + schemaFileForExample(example));
    expect(validate).toBeTypeOf('function');
    const data = JSON.parse(readFileSync(join(exampleDir, example), 'utf8'));
    const ok = validate?.(data);
    expect(ok, ajv.errorsText(validate?.errors)).toBe(true);
  });
});
