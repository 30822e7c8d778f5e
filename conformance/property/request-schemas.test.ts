/*
 * In-process property suite over every JSON request body of the service contract (generated/openapi/
 * service.bundled.json): valid instances are admitted by the server's validator, mutated ones are refused with
 * 400 INVALID_REQUEST (or 409 CHAIN_MISMATCH when the mutation changes the body chainId of a chain-bound path).
 * "Valid" and "invalid" are always judged by the strict Ajv 2020-12 oracle over spec/schemas
 * (src/spec/schema-registry.ts), never by the generator.
 *
 * Generators (json-schema-faker 0.6.3, seeded; measured acceptance by the oracle over 100 seeds, half with
 * alwaysFakeOptionals, with a `date-time` format generator that emits the millisecond-Z form common.schema.json
 * `Timestamp` pins by pattern):
 *   - PartnerSubkeyRequestV1             100/100 -> json-schema-faker
 *   - PermitReissueDispositionRequestV1  100/100 -> json-schema-faker
 *   - CustomLaunchCreateRequestV4          0/100 -> example mutation. JSF drops `prefixItems` when it merges an
 *     `allOf` (deploymentEvidence.resultingContracts[i].providerReadbacks become non-objects) and does not honour
 *     the profile oneOf + if/then (4.1.0 without fundingPlan).
 *   - CustomLaunchCreateRequestV3          0/100 -> example mutation. `contains` + min/maxContains over
 *     graph.targets and the if/then required-by-role rules are not met.
 *   - MultiRoleCustomLaunchCreateRequestV2 0/100 -> example mutation. Per-target if/then `required` is ignored.
 *   - ModuleSubmissionRequest              0/100 -> example mutation. Lookahead path patterns are not honoured,
 *     oneOf-of-const binding modes are mixed, and one instance takes ~125 ms to generate.
 * (json-schema-faker 0.5.9 was measured too: 0/50 on all but none better, 50/50 throws on V4, ~2.5 s per module
 * instance.) The choice is not hard-coded: beforeAll re-measures MEASURE_SEEDS seeds per schema, prints the rate,
 * and uses JSF when at least half are valid, the example mutation otherwise.
 *
 * Example mutation (the fallback): fast-check picks a spec example of the schema (spec/examples) and a list of
 * edits; each edit drops a property or array item, or swaps a leaf for a value JSF generates from a sub-schema the
 * spec declares for that property name (an enum/const member or a pattern/format/range-respecting value). An edit
 * the oracle rejects is undone, and the final instance is checked by the oracle again.
 *
 * Mutations (property 2), chosen by fast-check and applied to a valid instance: an unknown property at any object
 * depth; a character inserted into a pattern/format-constrained string; a number just past its minimum/maximum, a
 * string one code point past maxLength/below minLength, an array one past maxItems/below minItems; a const replaced
 * with another value. The oracle must reject the mutant (fc.pre), then every operation of the schema must answer
 * 400 INVALID_REQUEST, or 409 CHAIN_MISMATCH when the path carries {chainId} and the body's top-level chainId
 * no longer equals it (checked by the security handler before the schema, src/http/app.ts checkChainBinding).
 *
 * The route handlers are echo handlers (startServer's third argument): the real JSON parser, validator and bearer
 * auth stay in front, so a 2xx means "the validator admitted it". They answer with `rawJson`, sent by res.send,
 * which the response validator does not check.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { generateSync, type JsonSchema, type Random } from 'json-schema-faker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes } from '../../src/errors/codes.ts';
import type { OperationHandler } from '../../src/http/operation.ts';
import { exampleDir, loadSchemaRegistry, schemaFileForExample, schemaIdBase } from '../../src/spec/schema-registry.ts';
import { auth, call } from '../../test/support/http.ts';
import { startServer, type TestServer } from '../../test/support/server.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
type Schema = Record<string, unknown>;

const SEED = 4663;
/** PROPERTY_RUNS_SCALE=10 (say) runs a deeper search locally; the default keeps the file well under a minute. */
const scale = Math.max(Number(process.env.PROPERTY_RUNS_SCALE ?? 1) || 1, 1);
const VALID_RUNS = 30 * scale;
const MUTATION_RUNS = 40 * scale;
const MEASURE_SEEDS = 16;
/** Bounds past which a length/size mutation is skipped: the mutant would be slow or hit a body byte limit. */
const MAX_LENGTH_MUTATED = 100_000;
const MAX_ITEMS_MUTATED = 256;

const bundled = JSON.parse(
  readFileSync(new URL('../../generated/openapi/service.bundled.json', import.meta.url), 'utf8'),
) as { paths: Record<string, Record<string, unknown>> };
const dereferenced = JSON.parse(
  readFileSync(new URL('../../generated/openapi/service.dereferenced.json', import.meta.url), 'utf8'),
) as { paths: Record<string, Record<string, unknown>> };

const { ajv, files } = loadSchemaRegistry();

/** The spec file of each request body, for test names. */
const sections: Record<string, string> = {
  CustomLaunchCreateRequestV4: 'spec/schemas/custom-launch-create-request.v4.schema.json',
  CustomLaunchCreateRequestV3: 'spec/schemas/custom-launch-create-request.v3.schema.json (base-layer V3)',
  CustomLaunchFundingAuthorizationRequestV3:
    'spec/schemas/custom-launch-funding-authorization.v3.schema.json (base-layer V3 submitFundingAuthorizationV3)',
  MultiRoleCustomLaunchCreateRequestV2: 'spec/schemas/multi-role-create-request.v2.schema.json (shared lane)',
  ModuleSubmissionRequest: 'spec/schemas/module-submission-request.v0.1.schema.json',
  PartnerSubkeyRequestV1: 'spec/schemas/partner-subkey-request.v1.schema.json',
  PermitReissueDispositionRequestV1: 'spec/schemas/permit-reissue-disposition-request.v1.schema.json',
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Exactly what the wire carries: the server parses these bytes, so the oracle judges them too. */
function roundTrip(v: unknown): Json {
  return JSON.parse(JSON.stringify(v)) as Json;
}

// ---------------------------------------------------------------------------------------------------------------
// Operations and request schemas, derived from the bundled spec.

interface Operation {
  operationId: string;
  method: string;
  path: string;
  status2xx: number | undefined;
  idempotent: boolean;
  schemaName: string | undefined;
  /** The dereferenced request schema (what express-openapi-validator loads). */
  schema: Schema | undefined;
}

const operations: Operation[] = [];
for (const [path, item] of Object.entries(bundled.paths)) {
  for (const [method, raw] of Object.entries(item)) {
    if (!isObject(raw) || typeof raw.operationId !== 'string') continue;
    const responses = isObject(raw.responses) ? Object.keys(raw.responses) : [];
    const status2xx = responses.find((s) => /^2\d\d$/.test(s));
    const parameters = Array.isArray(raw.parameters) ? raw.parameters : [];
    const idempotent = parameters.some((p) => isObject(p) && p.$ref === '#/components/parameters/IdempotencyKey');
    const body = isObject(raw.requestBody) ? raw.requestBody : undefined;
    const content = body && isObject(body.content) ? body.content : undefined;
    const json = content && isObject(content['application/json']) ? content['application/json'] : undefined;
    const ref = json && isObject(json.schema) ? json.schema.$ref : undefined;
    const schemaName = typeof ref === 'string' ? ref.replace('#/components/schemas/', '') : undefined;
    const derefOp = dereferenced.paths[path]?.[method] as
      | { requestBody?: { content?: Record<string, { schema?: Schema }> } }
      | undefined;
    operations.push({
      operationId: raw.operationId,
      method: method.toUpperCase(),
      path,
      status2xx: status2xx === undefined ? undefined : Number(status2xx),
      idempotent,
      schemaName,
      schema: derefOp?.requestBody?.content?.['application/json']?.schema,
    });
  }
}

/** Every scope any operation requires but partner-subkeys:manage, which only a partner root holds. */
const allScopes = [
  ...new Set(
    Object.values(bundled.paths).flatMap((item) =>
      Object.values(item).flatMap((op) =>
        isObject(op) && Array.isArray(op.security)
          ? op.security.flatMap((req) => (isObject(req) ? Object.values(req).flat() : []))
          : [],
      ),
    ),
  ),
].filter((s): s is string => typeof s === 'string' && s !== 'partner-subkeys:manage');

/** Echo handlers: the op's first declared 2xx with a raw JSON body (res.send: not response-validated). */
const echoOperations: Record<string, OperationHandler> = Object.fromEntries(
  operations.map((op) => [op.operationId, () => ({ status: op.status2xx ?? 200, rawJson: '{}' })]),
);

function requestPath(op: Operation): string {
  return op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => (name === 'chainId' ? '4663' : randomUUID()));
}

// ---------------------------------------------------------------------------------------------------------------
// Schema index: every sub-schema the spec declares for a property name ("key"), or for the items of a key
// ("key[]"); the root is "#". Used to find the constraints of an instance location without re-implementing
// JSON Schema evaluation: whatever is proposed from it, the oracle decides.

type SchemaIndex = Map<string, Schema[]>;

function indexSchema(schema: unknown, key: string, out: SchemaIndex): void {
  if (!isObject(schema)) return;
  const list = out.get(key) ?? [];
  list.push(schema);
  out.set(key, list);
  for (const word of ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const) {
    const branches = schema[word];
    if (Array.isArray(branches))
      for (const b of branches) indexSchema(b, word === 'prefixItems' ? `${key}[]` : key, out);
  }
  for (const word of ['then', 'else'] as const) indexSchema(schema[word], key, out);
  if (isObject(schema.dependentSchemas))
    for (const s of Object.values(schema.dependentSchemas)) indexSchema(s, key, out);
  if (isObject(schema.properties)) for (const [k, s] of Object.entries(schema.properties)) indexSchema(s, k, out);
  indexSchema(schema.items, `${key}[]`, out);
  indexSchema(schema.contains, `${key}[]`, out);
}

interface Location {
  path: Array<string | number>;
  key: string;
  value: Json;
}

function locations(value: Json, path: Array<string | number> = [], key = '#'): Location[] {
  const here: Location = { path, key, value };
  if (Array.isArray(value)) return [here, ...value.flatMap((v, i) => locations(v, [...path, i], `${key}[]`))];
  if (value !== null && typeof value === 'object')
    return [here, ...Object.entries(value).flatMap(([k, v]) => locations(v, [...path, k], k))];
  return [here];
}

function getAt(root: Json, path: Array<string | number>): Json {
  let cur: Json = root;
  for (const seg of path) cur = (cur as Record<string | number, Json>)[seg] as Json;
  return cur;
}

/** Replaces (or with `undefined`, deletes) the value at `path` of a deep copy; the root cannot be deleted. */
function setAt(root: Json, path: Array<string | number>, value: Json | undefined): Json {
  if (path.length === 0) return value === undefined ? root : structuredClone(value);
  const copy = structuredClone(root);
  const parent = getAt(copy, path.slice(0, -1));
  const last = path[path.length - 1] as string | number;
  if (Array.isArray(parent)) {
    if (value === undefined) parent.splice(last as number, 1);
    else parent[last as number] = value;
  } else if (isObject(parent)) {
    if (value === undefined) delete parent[last as string];
    else parent[last as string] = value;
  }
  return copy;
}

function pointer(path: Array<string | number>): string {
  return path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

// ---------------------------------------------------------------------------------------------------------------
// Generators.

/** common.schema.json Timestamp: format date-time AND the millisecond-Z pattern; JSF's default omits the ms. */
const formats = {
  'date-time': (r: Random) => new Date(Date.UTC(2030, 0, 1) + r.int(0, 30_000_000) * 1000).toISOString(),
};

function fake(schema: Schema, seed: number, alwaysFakeOptionals: boolean): Json | undefined {
  try {
    return roundTrip(
      generateSync(schema as JsonSchema, { seed, alwaysFakeOptionals, optionalsProbability: 0.5, formats }),
    );
  } catch {
    return undefined;
  }
}

interface Subject {
  name: string;
  section: string;
  file: string;
  validate: (v: unknown) => boolean;
  errors: () => string;
  /** The instance paths of every error of the last validation. */
  errorPaths: () => string[];
  schema: Schema;
  ops: Operation[];
  examples: Json[];
  index: SchemaIndex;
  generator: 'json-schema-faker' | 'example-mutation';
  jsfRate: number;
  /** Example-mutation edits tried and kept (the oracle accepted the edited instance). */
  edits: { tried: number; kept: number };
}

type Edit = { kind: 'drop' | 'swap'; pick: number; seed: number };

const leafWords = ['const', 'enum', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];
function isLeafSchema(s: Schema): boolean {
  return (
    leafWords.some((w) => w in s) ||
    (typeof s.type === 'string' && ['string', 'integer', 'number', 'boolean'].includes(s.type))
  );
}

/** Applies the edits to a copy of the example, undoing any edit the oracle rejects. */
function editExample(subject: Subject, base: Json, edits: Edit[]): Json {
  let current = base;
  for (const edit of edits) {
    const locs = locations(current).filter((l) => l.path.length > 0);
    if (locs.length === 0) break;
    const loc = locs[edit.pick % locs.length] as Location;
    let next: Json | undefined;
    if (edit.kind === 'drop') next = setAt(current, loc.path, undefined);
    else {
      const candidates = (subject.index.get(loc.key) ?? []).filter(isLeafSchema);
      const sub = candidates[edit.seed % Math.max(candidates.length, 1)];
      const value = sub === undefined ? undefined : fake(sub, edit.seed, false);
      if (value !== undefined) next = setAt(current, loc.path, value);
    }
    subject.edits.tried++;
    if (next !== undefined && subject.validate(next)) {
      current = next;
      subject.edits.kept++;
    }
  }
  return current;
}

function validArbitrary(subject: Subject): fc.Arbitrary<Json | undefined> {
  if (subject.generator === 'json-schema-faker') {
    return fc
      .record({ seed: fc.integer({ min: 1, max: 0x7fffffff }), optionals: fc.boolean() })
      .map(({ seed, optionals }) => fake(subject.schema, seed, optionals));
  }
  const edit: fc.Arbitrary<Edit> = fc.record({
    kind: fc.constantFrom('drop' as const, 'swap' as const),
    pick: fc.nat(),
    seed: fc.integer({ min: 1, max: 0x7fffffff }),
  });
  return fc
    .record({ base: fc.nat({ max: subject.examples.length - 1 }), edits: fc.array(edit, { maxLength: 8 }) })
    .map(({ base, edits }) => editExample(subject, subject.examples[base] as Json, edits));
}

// ---------------------------------------------------------------------------------------------------------------
// Mutations.

type MutationKind = 'unknownProperty' | 'breakPattern' | 'outOfRange' | 'wrongConst';
interface Mutation {
  kind: MutationKind;
  pick: number;
  seed: number;
  char: string;
  /** Set only by explicit examples: the JSON pointer of the location to mutate. */
  at?: string;
}
interface Mutant {
  mutant: Json;
  description: string;
}

const mutationArbitrary: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom<MutationKind>('unknownProperty', 'breakPattern', 'outOfRange', 'wrongConst'),
  pick: fc.nat(),
  seed: fc.nat(),
  char: fc.constantFrom('!', ' ', '~', '\n', 'é', '#', 'Z', '\u0000'),
});

type Change = (loc: Location) => { value: Json; what: string } | undefined;

function numericBound(loc: Location, s: Schema, seed: number): { value: Json; what: string } | undefined {
  if (typeof loc.value !== 'number') return undefined;
  const integer = s.type === 'integer' || Number.isInteger(loc.value);
  const eps = integer ? 1 : 1e-6;
  const options: Array<{ value: number; what: string }> = [];
  if (typeof s.maximum === 'number') options.push({ value: s.maximum + eps, what: `maximum ${s.maximum}` });
  if (typeof s.minimum === 'number') options.push({ value: s.minimum - eps, what: `minimum ${s.minimum}` });
  if (typeof s.exclusiveMaximum === 'number')
    options.push({ value: s.exclusiveMaximum, what: `exclusiveMaximum ${s.exclusiveMaximum}` });
  if (typeof s.exclusiveMinimum === 'number')
    options.push({ value: s.exclusiveMinimum, what: `exclusiveMinimum ${s.exclusiveMinimum}` });
  return options[seed % Math.max(options.length, 1)];
}

function lengthBound(loc: Location, s: Schema, seed: number): { value: Json; what: string } | undefined {
  const options: Array<{ value: Json; what: string }> = [];
  if (typeof loc.value === 'string') {
    const chars = Array.from(loc.value);
    const fill = chars[chars.length - 1] ?? 'a';
    if (typeof s.maxLength === 'number' && s.maxLength <= MAX_LENGTH_MUTATED)
      options.push({
        value: chars.join('') + fill.repeat(Math.max(s.maxLength + 1 - chars.length, 1)),
        what: `maxLength ${s.maxLength}`,
      });
    if (typeof s.minLength === 'number' && s.minLength > 0)
      options.push({ value: chars.slice(0, s.minLength - 1).join(''), what: `minLength ${s.minLength}` });
  }
  if (Array.isArray(loc.value) && loc.value.length > 0) {
    const arr = loc.value;
    if (typeof s.maxItems === 'number' && s.maxItems <= MAX_ITEMS_MUTATED) {
      const grown = [...arr];
      while (grown.length <= s.maxItems) grown.push(structuredClone(arr[grown.length % arr.length] as Json));
      options.push({ value: grown, what: `maxItems ${s.maxItems}` });
    }
    if (typeof s.minItems === 'number' && s.minItems > 0)
      options.push({ value: arr.slice(0, s.minItems - 1), what: `minItems ${s.minItems}` });
  }
  return options[seed % Math.max(options.length, 1)];
}

function constChange(
  loc: Location,
  s: Schema,
  seed: number,
  subject: Subject,
): { value: Json; what: string } | undefined {
  if (!('const' in s)) return undefined;
  const c = s.const as Json;
  const others = (subject.index.get(loc.key) ?? [])
    .filter((o) => 'const' in o && JSON.stringify(o.const) !== JSON.stringify(c))
    .map((o) => o.const as Json);
  let options: Json[];
  if (loc.key === 'chainId' && typeof c === 'string') options = ['1', '4664', ...others];
  else if (typeof c === 'string') options = [`${c}x`, c.slice(0, -1), ...others];
  else if (typeof c === 'number') options = [c + 1, c - 1, ...others];
  else if (typeof c === 'boolean') options = [!c];
  else if (Array.isArray(c)) options = [[...c].reverse(), c.slice(1), ...others];
  else options = [{}, ...others];
  const value = options[seed % options.length];
  return value === undefined ? undefined : { value, what: `const ${JSON.stringify(c).slice(0, 80)}` };
}

function mutate(subject: Subject, valid: Json, m: Mutation): Mutant | undefined {
  const all = locations(valid);
  const schemasAt = (loc: Location) => subject.index.get(loc.key) ?? [];
  let change: Change;
  let eligible: (loc: Location) => boolean;
  switch (m.kind) {
    case 'unknownProperty':
      eligible = (loc) => isObject(loc.value);
      change = (loc) => ({
        value: { ...(loc.value as JsonObject), [`unknownProperty${m.seed % 100}`]: m.seed % 2 === 0 ? true : 'x' },
        what: 'unknown property',
      });
      break;
    case 'breakPattern':
      eligible = (loc) => typeof loc.value === 'string' && schemasAt(loc).some((s) => 'pattern' in s || 'format' in s);
      change = (loc) => {
        const chars = Array.from(loc.value as string);
        const at = m.seed % (chars.length + 1);
        return {
          value: [...chars.slice(0, at), m.char, ...chars.slice(at)].join(''),
          what: `pattern, ${JSON.stringify(m.char)} at ${at}`,
        };
      };
      break;
    case 'outOfRange':
      eligible = (loc) => schemasAt(loc).some((s) => (numericBound(loc, s, 0) ?? lengthBound(loc, s, 0)) !== undefined);
      change = (loc) => {
        const options = schemasAt(loc).filter((s) => (numericBound(loc, s, 0) ?? lengthBound(loc, s, 0)) !== undefined);
        const s = options[m.seed % options.length] as Schema;
        return numericBound(loc, s, m.seed) ?? lengthBound(loc, s, m.seed);
      };
      break;
    case 'wrongConst':
      eligible = (loc) => schemasAt(loc).some((s) => 'const' in s);
      change = (loc) => {
        const options = schemasAt(loc).filter((s) => 'const' in s);
        return constChange(loc, options[m.seed % options.length] as Schema, Math.floor(m.seed / 7), subject);
      };
      break;
  }
  const candidates = all.filter(eligible);
  const loc =
    m.at === undefined
      ? candidates[m.pick % Math.max(candidates.length, 1)]
      : candidates.find((l) => pointer(l.path) === m.at);
  if (loc === undefined) return undefined;
  const changed = change(loc);
  if (changed === undefined) return undefined;
  return {
    mutant: roundTrip(setAt(valid, loc.path, changed.value)),
    description: `${m.kind} at ${pointer(loc.path) || '/'} (${changed.what})`,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Subjects.

function schemaFileOf(name: string): string {
  for (const file of files) {
    const schema = JSON.parse(readFileSync(new URL(`../../spec/schemas/${file}`, import.meta.url), 'utf8')) as {
      title?: string;
    };
    if (schema.title === name) return file;
  }
  throw new Error(`no spec/schemas file has the title ${name}`);
}

const bodyOps = operations.filter((op) => op.schemaName !== undefined);
const schemaNames = [...new Set(bodyOps.map((op) => op.schemaName as string))];

function buildSubject(name: string): Subject {
  const file = schemaFileOf(name);
  const validateFn = ajv.getSchema(`${schemaIdBase}${file}`);
  if (!validateFn) throw new Error(`the oracle has no schema ${file}`);
  const ops = bodyOps.filter((op) => op.schemaName === name);
  const schema = ops[0]?.schema;
  if (!schema) throw new Error(`${name}: no dereferenced request schema`);
  const index: SchemaIndex = new Map();
  indexSchema(schema, '#', index);
  const examples = readdirSync(exampleDir)
    .filter((f) => f.endsWith('.json') && schemaFileForExample(f) === file)
    .sort()
    .map((f) => JSON.parse(readFileSync(`${exampleDir}${f}`, 'utf8')) as Json);
  return {
    name,
    section: sections[name] ?? 'spec file not mapped',
    file,
    validate: (v) => validateFn(v) === true,
    errors: () =>
      (validateFn.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || '/'} ${e.keyword} ${e.message ?? ''}`)
        .join('; '),
    errorPaths: () => [...new Set((validateFn.errors ?? []).map((e) => e.instancePath))],
    schema,
    ops,
    examples,
    index,
    generator: 'example-mutation',
    jsfRate: 0,
    edits: { tried: 0, kept: 0 },
  };
}

const subjects = schemaNames.map(buildSubject);

let s: TestServer;
let key: string;
/** The subkey routes' caller: a partner root with its budgets at their maxima. */
let partnerKey: string;
const tally: Record<string, Record<string, number>> = {};

beforeAll(async () => {
  for (const subject of subjects) {
    let valid = 0;
    for (let seed = 1; seed <= MEASURE_SEEDS; seed++) {
      const v = fake(subject.schema, seed, seed % 2 === 0);
      if (v !== undefined && subject.validate(v)) valid++;
    }
    subject.jsfRate = valid / MEASURE_SEEDS;
    subject.generator = subject.jsfRate >= 0.5 ? 'json-schema-faker' : 'example-mutation';
    console.info(
      `[request-schemas] ${subject.name}: json-schema-faker ${valid}/${MEASURE_SEEDS} valid by the oracle -> ${subject.generator}`,
    );
  }
  s = await startServer({ routeBudgetPerMinute: 1_000_000 }, undefined, echoOperations);
  key = s.key({ scopes: allScopes, chains: ['4663', '1'] });
  partnerKey = s.partnerRoot({
    expiresAt: '9999-12-31T23:59:59.999Z',
    budgets: { prepareRequestsPerHour: 100_000, readRequestsPerMinute: 10_000, subkeyAdminRequestsPerHour: 100_000 },
  }).apiKey;
});

afterAll(async () => {
  for (const subject of subjects.filter((x) => x.generator === 'example-mutation'))
    console.info(`[request-schemas] ${subject.name}: example edits kept ${subject.edits.kept}/${subject.edits.tried}`);
  console.info(`[request-schemas] mutation outcomes: ${JSON.stringify(tally)}`);
  await s?.close();
});

async function send(op: Operation, body: Json) {
  const caller = requestPath(op).startsWith('/v1/partner/') ? partnerKey : key;
  const headers = auth(caller, op.idempotent ? { 'Idempotency-Key': `property-${randomUUID()}` } : {});
  return call(`${s.url}${requestPath(op)}`, { method: op.method, headers, body: JSON.stringify(body) });
}

describe('request schemas of the bundled spec', () => {
  it('every JSON request body of the spec is covered, with a spec example and a 2xx per operation', () => {
    expect(schemaNames.length).toBeGreaterThan(0);
    expect([...schemaNames].sort()).toEqual(
      [
        'CustomLaunchCreateRequestV3',
        'CustomLaunchCreateRequestV4',
        'CustomLaunchFundingAuthorizationRequestV3',
        'ModuleSubmissionRequest',
        'MultiRoleCustomLaunchCreateRequestV2',
        'PartnerSubkeyRequestV1',
        'PermitReissueDispositionRequestV1',
      ].sort(),
    );
    for (const subject of subjects) {
      expect(subject.examples.length, subject.name).toBeGreaterThan(0);
      for (const ex of subject.examples)
        expect(subject.validate(ex), `${subject.name}: ${subject.errors()}`).toBe(true);
      for (const op of subject.ops) expect(op.status2xx, op.operationId).toBeDefined();
    }
  });
});

/**
 * The documented code of a schema failure (spec/openapi/paths/modules-submissions.yaml submitModule): a module
 * submission whose every error lies in the reward wallet is OPEN_ADDRESS, in the inventory's hashes
 * OPEN_SOURCE_HASH, in the submitted files' hashes or bytes MODULE_FILE_HASH; anything else, and every other
 * operation, INVALID_REQUEST.
 */
function schemaFailureCode(operationId: string, paths: string[]): string {
  if (operationId !== 'submitModule' || paths.length === 0) return 'INVALID_REQUEST';
  const rules: Array<[RegExp, string]> = [
    [/^\/descriptor\/rewardWallet$/, 'OPEN_ADDRESS'],
    [/^\/descriptor\/source\/files\/\d+\/sha256$/, 'OPEN_SOURCE_HASH'],
    [/^\/files\/\d+\/(sha256|bytes)$/, 'MODULE_FILE_HASH'],
  ];
  for (const [pattern, code] of rules) if (paths.every((p) => pattern.test(p))) return code;
  return 'INVALID_REQUEST';
}

for (const subject of subjects) {
  const opIds = subject.ops.map((op) => op.operationId).join(', ');

  describe(`${subject.name} (${subject.section})`, () => {
    it(`${subject.name}, ${subject.section}: valid generated instances are admitted by ${opIds}`, async () => {
      let admitted = 0;
      await fc.assert(
        fc.asyncProperty(validArbitrary(subject), async (instance) => {
          fc.pre(instance !== undefined && subject.validate(instance));
          for (const op of subject.ops) {
            const r = await send(op, instance as Json);
            expect(r.status, `${op.operationId} refused an oracle-valid body: ${r.text.slice(0, 600)}`).toBe(
              op.status2xx,
            );
          }
          admitted++;
        }),
        { seed: SEED, numRuns: VALID_RUNS },
      );
      expect(admitted).toBeGreaterThan(0);
    });

    it(`${subject.name}, ${subject.section}: mutated instances are refused by ${opIds} with a documented code`, async () => {
      const outcomes: Record<string, number> = {};
      tally[subject.name] = outcomes;
      const chainExample: Array<[Json | undefined, Mutation]> =
        isObject(subject.examples[0]) && 'chainId' in subject.examples[0]
          ? [[subject.examples[0], { kind: 'wrongConst', pick: 0, seed: 0, char: '!', at: '/chainId' }]]
          : [];
      await fc.assert(
        fc.asyncProperty(validArbitrary(subject), mutationArbitrary, async (instance, mutation) => {
          fc.pre(instance !== undefined && subject.validate(instance));
          const m = mutate(subject, instance as Json, mutation);
          fc.pre(m !== undefined);
          const { mutant, description } = m as Mutant;
          fc.pre(!subject.validate(mutant));
          const oracle = subject.errors();
          for (const op of subject.ops) {
            const chainBound = op.path.includes('{chainId}');
            const bodyChain = isObject(mutant) ? mutant.chainId : undefined;
            const expected =
              chainBound && bodyChain !== undefined && bodyChain !== '4663'
                ? { status: 409, code: 'CHAIN_MISMATCH' }
                : { status: 400, code: schemaFailureCode(op.operationId, subject.errorPaths()) };
            const r = await send(op, mutant);
            const context = `${op.operationId}, ${description}; oracle: ${oracle}; server: ${r.status} ${r.text.slice(0, 400)}`;
            expect(r.status, context).toBe(expected.status);
            expect(errorCodes as readonly string[], context).toContain(r.json?.error?.code);
            expect(r.json?.error?.code, context).toBe(expected.code);
            const k = `${mutation.kind}:${expected.code}`;
            outcomes[k] = (outcomes[k] ?? 0) + 1;
          }
        }),
        { seed: SEED, numRuns: MUTATION_RUNS, examples: chainExample },
      );
      expect(Object.keys(outcomes).length).toBeGreaterThan(0);
    });
  });
}
