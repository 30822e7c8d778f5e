import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildOperations } from '../../src/http/routes/index.ts';

// docs/operations.md lists every operation of the service spec once: under "## Implemented" when the server has a
// handler for it, under "## Not yet implemented" when it answers 501 NOT_IMPLEMENTED. These tests keep both lists,
// and the route each row names, equal to the server and the spec.
const bundled = JSON.parse(
  readFileSync(new URL('../../generated/openapi/service.bundled.json', import.meta.url), 'utf8'),
);
const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Operation {
  operationId: string;
  responses: Record<string, unknown>;
}
const operations: Array<Operation & { route: string }> = [];
for (const [path, item] of Object.entries(bundled.paths as Record<string, Record<string, Operation>>)) {
  for (const method of methods) {
    const op = item[method];
    if (op) operations.push({ ...op, route: `${method.toUpperCase()} ${path}` });
  }
}
const implemented = new Set(
  Object.keys(buildOperations({ db: undefined as never, config: loadConfig({}), now: Date.now })),
);

/** The table rows of one `## <title>` section of docs/operations.md: the operationId and the rest of the row. */
function rows(title: string): Array<{ operationId: string | undefined; rest: string }> {
  const section = doc.split(`\n## ${title}\n`)[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\| `([A-Za-z0-9]+)` \|(.*)$/gm)].map((m) => ({ operationId: m[1], rest: m[2] ?? '' }));
}

describe('docs/operations.md', () => {
  it('lists exactly the operations that answer 501 as not yet implemented', () => {
    const listed = rows('Not yet implemented')
      .map((r) => r.operationId)
      .sort();
    const declared = operations
      .filter((o) => !implemented.has(o.operationId))
      .map((o) => o.operationId)
      .sort();
    expect(listed).toEqual(declared);
    expect(listed).toEqual(
      operations
        .filter((o) => '501' in o.responses)
        .map((o) => o.operationId)
        .sort(),
    );
  });

  it('lists exactly the operations with a handler as implemented', () => {
    const listed = rows('Implemented')
      .map((r) => r.operationId)
      .sort();
    expect(listed).toEqual([...implemented].sort());
  });

  it('lists exactly the developer API operations, each by its method and path', () => {
    const developer = JSON.parse(
      readFileSync(new URL('../../generated/openapi/developer-api.bundled.json', import.meta.url), 'utf8'),
    ) as { paths: Record<string, Record<string, Operation>> };
    const routes = Object.entries(developer.paths).flatMap(([path, item]) =>
      methods.filter((m) => item[m]).map((m) => [item[m]?.operationId ?? '', `${m.toUpperCase()} ${path}`] as const),
    );
    const listed = rows('Developer API');
    expect(listed.map((r) => r.operationId).sort()).toEqual(routes.map(([id]) => id).sort());
    const routeOf = new Map(routes);
    for (const { operationId, rest } of listed) {
      expect(rest.match(/^ `([A-Z]+ [^`]+)`/)?.[1], operationId).toBe(routeOf.get(operationId ?? ''));
    }
  });

  it('names each operation by the method and path the spec gives it', () => {
    const routeOf = new Map(operations.map((o) => [o.operationId, o.route]));
    const listed = [...rows('Implemented'), ...rows('Not yet implemented')];
    expect(listed.length).toBeGreaterThan(0);
    for (const { operationId, rest } of listed) {
      expect(rest.match(/^ `([A-Z]+ [^`]+)`/)?.[1], operationId).toBe(routeOf.get(operationId ?? ''));
    }
  });
});
