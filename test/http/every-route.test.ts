import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildOperations } from '../../src/http/routes/index.ts';
import { exampleDir, loadSchemaRegistry, schemaFileForExample, schemaIdBase } from '../../src/spec/schema-registry.ts';
import { call } from '../support/http.ts';
import { startServer, type TestServer } from '../support/server.ts';

// The validator reports a broken spec only on the first request to a route, so this calls every route once.
const bundled = JSON.parse(
  readFileSync(new URL('../../generated/openapi/service.bundled.json', import.meta.url), 'utf8'),
);
const { ajv } = loadSchemaRegistry();
const validateApiError = ajv.getSchema(`${schemaIdBase}api-error.schema.json`);
const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Examples by the title of the schema they instantiate. */
const examplesByTitle = new Map<string, string>();
for (const file of readdirSync(exampleDir)) {
  if (file.includes('--')) continue;
  const schema = JSON.parse(
    readFileSync(new URL(`../../spec/schemas/${schemaFileForExample(file)}`, import.meta.url), 'utf8'),
  );
  examplesByTitle.set(schema.title, readFileSync(new URL(`../../spec/examples/${file}`, import.meta.url), 'utf8'));
}

interface Operation {
  path: string;
  method: (typeof methods)[number];
  operationId: string;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, unknown>;
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
}
const operations: Operation[] = [];
for (const [path, item] of Object.entries(bundled.paths as Record<string, Record<string, Operation>>)) {
  for (const method of methods) if (item[method]) operations.push({ ...item[method], path, method });
}
const implemented = new Set(
  Object.keys(buildOperations({ db: undefined as never, config: loadConfig({}), now: Date.now })),
);

let s: TestServer;
let key: string;
let partnerKey: string;
beforeAll(async () => {
  s = await startServer();
  key = s.key({
    scopes: ['custom-launch:create', 'custom-launch:read', 'modules:submit', 'modules:read'],
    chains: ['4663', '1'],
  });
  // Only a partner root holds partner-subkeys:manage: the subkey routes are called with one.
  partnerKey = s.partnerRoot().apiKey;
});
afterAll(() => s.close());

describe('every operation of the service spec', () => {
  it('has a handler or declares 501, never both', () => {
    for (const op of operations) {
      expect('501' in op.responses, op.operationId).toBe(!implemented.has(op.operationId));
    }
    for (const id of implemented) expect(operations.map((o) => o.operationId)).toContain(id);
  });

  // docs/operations.md lists the implemented and the 501 operations: test/docs/operations.test.ts keeps it equal.

  it.each(operations.map((o) => [`${o.method.toUpperCase()} ${o.path} (${o.operationId})`, o] as const))(
    '%s answers a declared status',
    async (_name, op) => {
      const url =
        s.url +
        op.path.replace('{chainId}', op.path.startsWith('/v4/') ? '4663' : '1').replace(/\{[A-Za-z]+\}/g, randomUUID());
      const headers: Record<string, string> = { 'Idempotency-Key': `every-route-${randomUUID()}` };
      if (op.security?.length) {
        headers.Authorization = `Bearer ${op.path.startsWith('/v1/partner/') ? partnerKey : key}`;
      }
      let body: string | undefined;
      if (op.requestBody?.content['application/octet-stream']) {
        body = '// SPDX-License-Identifier: MIT\n';
        headers['Content-Type'] = 'application/octet-stream';
      } else if (op.requestBody) {
        const ref = op.requestBody.content['application/json']?.schema.$ref ?? '';
        const title = ref.split('/').at(-1) ?? '';
        body = examplesByTitle.get(title);
        expect(body, `an example for ${title}`).toBeDefined();
        headers['Content-Type'] = 'application/json';
      }
      const r = await call(url, { method: op.method.toUpperCase(), headers, body });
      expect(Object.keys(op.responses), `${r.status} ${r.text.slice(0, 300)}`).toContain(String(r.status));
      if (r.status >= 400) expect(validateApiError?.(r.json), r.text).toBe(true);
      if (!implemented.has(op.operationId)) {
        expect(r.status).toBe(501);
        expect(r.json.error.code).toBe('NOT_IMPLEMENTED');
      } else {
        expect(r.status, r.text.slice(0, 300)).not.toBe(500);
      }
    },
  );
});
