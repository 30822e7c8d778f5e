import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleDir, loadSchemaRegistry, schemaFileForExample, schemaIdBase } from '../../src/spec/schema-registry.ts';
import { auth, call, type Reply } from '../support/http.ts';
import { example, startServer, type TestServer, v4Example, v4FrozenExample } from '../support/server.ts';

// Every object of every request shape is closed (spec/README.md Conventions; a profile's request never gains
// successor fields): an extra member at any depth is refused by the schema and by the real server.

const { ajv } = loadSchemaRegistry();
const examples = readdirSync(exampleDir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const readExample = (file: string): unknown => JSON.parse(readFileSync(join(exampleDir, file), 'utf8'));
const extra = 'unexpectedProperty';

/** JSON pointer escaping (RFC 6901). */
const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** The JSON pointer of every object in a document, at every depth, including objects inside arrays. */
function objectPointers(node: unknown, pointer = ''): string[] {
  if (Array.isArray(node)) return node.flatMap((v, i) => objectPointers(v, `${pointer}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  return [
    pointer,
    ...Object.entries(node as Record<string, unknown>).flatMap(([k, v]) =>
      objectPointers(v, `${pointer}/${escapeToken(k)}`),
    ),
  ];
}

/** A deep copy of `doc` with `"unexpectedProperty": true` added to the object at `pointer`. */
function injectAt(doc: unknown, pointer: string): unknown {
  const copy = structuredClone(doc);
  let target: unknown = copy;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    target = (target as Record<string, unknown>)[token];
  }
  const object = target as Record<string, unknown>;
  expect(object, `${pointer} must be an object`).toBeTypeOf('object');
  expect(Object.hasOwn(object, extra), `${pointer} already has ${extra}`).toBe(false);
  object[extra] = true;
  return copy;
}

/**
 * The only objects of the examples that are open by design, not records with a closed field set: the value of each
 * `descriptor.extensions` namespace (optional inert metadata under a versioned namespace;
 * module-descriptor.v0.1.schema.json `$defs.ExtensionObject`, a bounded map of inert values).
 * Their keys are checked against the map's own key pattern below instead. Nothing else is exempt.
 */
function isDeclaredOpenMap(file: string, pointer: string): boolean {
  return file === 'module-submission-request.v0.1.json' && /^\/descriptor\/extensions\/[^/]+(\/.*)?$/.test(pointer);
}

describe('closed objects: every spec example rejects an extra property at every object (schema level)', () => {
  const rows = examples.map((file) => [file, schemaFileForExample(file)] as const);

  it('covers every example file of spec/examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
    expect(examples).toContain(v4Example);
    expect(examples).toContain(v4FrozenExample);
  });

  it.each(rows)('%s (%s): the unmodified example is accepted', (file, schemaFile) => {
    const validate = ajv.getSchema(schemaIdBase + schemaFile);
    expect(validate, `no schema ${schemaFile}`).toBeTypeOf('function');
    expect(validate?.(readExample(file)), ajv.errorsText(validate?.errors)).toBe(true);
  });

  it.each(rows)('%s (%s): an extra property at any depth is rejected', (file, schemaFile) => {
    const validate = ajv.getSchema(schemaIdBase + schemaFile);
    expect(validate, `no schema ${schemaFile}`).toBeTypeOf('function');
    const doc = readExample(file);
    const pointers = objectPointers(doc);
    expect(pointers.length).toBeGreaterThan(0);
    const accepted = pointers.filter((pointer) => validate?.(injectAt(doc, pointer)) === true);
    const closedButAccepted = accepted.filter((pointer) => !isDeclaredOpenMap(file, pointer));
    expect(closedButAccepted, `${file}: ${extra} accepted at these JSON pointers`).toEqual([]);
  });

  it('module-submission-request.v0.1.json: the declared open map /descriptor/extensions/{namespace} still bounds its keys', () => {
    const file = 'module-submission-request.v0.1.json';
    const validate = ajv.getSchema(schemaIdBase + schemaFileForExample(file));
    const doc = readExample(file) as { descriptor: { extensions: Record<string, Record<string, unknown>> } };
    const namespaces = Object.keys(doc.descriptor.extensions);
    expect(namespaces.length).toBeGreaterThan(0);
    for (const ns of namespaces) {
      const pointer = `/descriptor/extensions/${escapeToken(ns)}`;
      expect(isDeclaredOpenMap(file, pointer)).toBe(true);
      // A key outside ^[A-Za-z0-9_.-]{1,64}$ and a non-JSON-scalar depth beyond three levels are refused.
      const badKey = structuredClone(doc);
      (badKey.descriptor.extensions[ns] as Record<string, unknown>)['unexpected property'] = true;
      expect(validate?.(badKey), `${pointer}: a key with a space`).toBe(false);
      const tooDeep = structuredClone(doc);
      (tooDeep.descriptor.extensions[ns] as Record<string, unknown>).deep = { a: { b: { c: 1 } } };
      expect(validate?.(tooDeep), `${pointer}: four levels of nesting`).toBe(false);
    }
  });
});

describe('closed objects: the real server refuses an extra property at every object of a V4 request', () => {
  let s: TestServer;
  let key: string;
  const preflightUrl = () => `${s.url}/v4/chains/4663/custom-launches/preflight`;
  const preflight = (body: unknown): Promise<Reply> =>
    call(preflightUrl(), { method: 'POST', headers: auth(key), body: JSON.stringify(body) });

  beforeAll(async () => {
    s = await startServer();
    key = s.key({ scopes: ['custom-launch:create'] });
  });
  afterAll(async () => {
    await s?.close();
  });

  /** 400 INVALID_REQUEST, not retryable, with the request id echoed. */
  function expectInvalid(r: Reply, what: string): void {
    expect(r.status, `${what}: ${r.text}`).toBe(400);
    expect(r.json?.error?.code, `${what}: ${r.text}`).toBe('INVALID_REQUEST');
    expect(r.json.error.retryable, what).toBe(false);
    expect(r.json.error.requestId, what).toBe(r.headers.get('x-request-id'));
  }

  /** Runs `task` over `items` with at most `width` in flight. */
  async function pool<T, R>(items: T[], width: number, task: (item: T) => Promise<R>): Promise<R[]> {
    const results: R[] = new Array(items.length);
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await task(items[i] as T);
      }
    };
    await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
    return results;
  }

  const lanes = [
    ['4.1.0', v4Example],
    ['4.0.0', v4FrozenExample],
  ] as const;

  it.each(lanes)('closed request: the unmodified %s example (%s) answers 200', async (_profile, file) => {
    const r = await preflight(example(file));
    expect(r.status, r.text).toBe(200);
  });

  it.each(lanes)(
    'closed request: an extra property at any depth of the %s example (%s) is 400',
    async (_profile, file) => {
      const doc = example(file);
      const pointers = objectPointers(doc);
      expect(pointers.length).toBeGreaterThan(10);
      const replies = await pool(
        pointers,
        8,
        async (pointer) => [pointer, await preflight(injectAt(doc, pointer))] as const,
      );
      const wrong = replies
        .filter(([, r]) => r.status !== 400 || r.json?.error?.code !== 'INVALID_REQUEST')
        .map(([pointer, r]) => `${pointer} -> ${r.status} ${r.text.slice(0, 300)}`);
      expect(wrong, `${file}: not refused with 400 INVALID_REQUEST`).toEqual([]);
      for (const [pointer, r] of replies) expectInvalid(r, `${file}#${pointer}`);
    },
  );

  it('closed request: a 4.0.0 request carrying the 4.1.0 fundingPlan is 400 (no successor fields)', async () => {
    const frozen = example(v4FrozenExample);
    const current = example(v4Example);
    expect(frozen.fundingPlan).toBeUndefined();
    expect(current.fundingPlan).toBeTypeOf('object');
    expectInvalid(await preflight({ ...frozen, fundingPlan: current.fundingPlan }), '4.0.0 + fundingPlan');
  });

  it('closed request: a 4.1.0 request without fundingPlan is 400', async () => {
    const { fundingPlan, ...rest } = example(v4Example);
    expect(fundingPlan).toBeTypeOf('object');
    expectInvalid(await preflight(rest), '4.1.0 - fundingPlan');
  });
});
