import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import {
  forClientGenerators,
  forOpenapiGenerator,
  type Json,
  tupleItems,
} from '../../scripts/client-generator-forms.ts';
import { exampleDir } from '../../src/spec/schema-registry.ts';

// The clients variant of the bundle (generated/openapi/service.clients.json) restates forms the pinned client
// generators cannot load; each rewrite must accept every document the exact schema accepts (docs/clients.md).

const root = new URL('../../', import.meta.url).pathname;
const bundle = (name: string) => JSON.parse(readFileSync(join(root, 'generated/openapi', name), 'utf8'));

/** A validator of `schema` (2020-12, full formats; OpenAPI's and oapi-codegen's keywords allowed). */
function validator(schema: Json): (data: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv, { mode: 'full' });
  return ajv.compile(schema as object);
}

/** Asserts both schemas accept every instance of `accepted`, and the original refuses every one of `refused`. */
function keepsAccepting(original: Json, accepted: unknown[], refused: unknown[] = []): Json {
  const rewritten = forClientGenerators(structuredClone(original));
  const [before, after] = [validator(original), validator(rewritten)];
  for (const instance of accepted) {
    expect(before(instance), `the original accepts ${JSON.stringify(instance)}`).toBe(true);
    expect(after(instance), `the rewrite accepts ${JSON.stringify(instance)}`).toBe(true);
  }
  for (const instance of refused)
    expect(before(instance), `the original refuses ${JSON.stringify(instance)}`).toBe(false);
  return rewritten;
}

const readback = (provider: string) => ({
  type: 'object',
  required: ['providerId'],
  properties: { providerId: { type: 'string' } },
  $comment: `position of ${provider}`,
});

describe('the clients variant of a schema', () => {
  it('turns a boolean schema into its object form', () => {
    const rewritten = keepsAccepting(
      { type: 'object', properties: { a: { type: 'string' }, never: false }, additionalProperties: false },
      [{ a: 'x' }, {}],
      [{ never: 1 }],
    );
    expect(rewritten).toMatchObject({ properties: { never: { not: {} } } });
  });

  it('gives a tuple whose members differ only in annotations one item schema, and keeps its length', () => {
    const original = { type: 'array', minItems: 2, prefixItems: [readback('one'), readback('two')], items: false };
    const rewritten = keepsAccepting(original, [[{ providerId: 'a' }, { providerId: 'b' }]], [[{ providerId: 'a' }]]);
    // The positional comments differ, so neither is kept.
    const { $comment: _position, ...item } = readback('one');
    expect(rewritten).toEqual({ type: 'array', items: item, minItems: 2, maxItems: 2 });
  });

  it('gives a tuple of string constants a string enum', () => {
    const rewritten = keepsAccepting(
      { type: 'array', prefixItems: [{ const: 'graphFactory' }, { const: 'permitAuthority' }], items: false },
      [['graphFactory', 'permitAuthority']],
      [['permitAuthority', 'graphFactory']],
    );
    expect(rewritten).toMatchObject({ items: { type: 'string', enum: ['graphFactory', 'permitAuthority'] } });
  });

  it('gives a tuple of members that narrow one $ref that $ref', () => {
    const narrowed = (contract: string): Json => ({
      allOf: [{ $ref: '#/$defs/Contract' }, { type: 'object', properties: { contract: { const: contract } } }],
    });
    const original = {
      $defs: {
        Contract: {
          type: 'object',
          required: ['contract'],
          properties: { contract: { enum: ['a', 'b'] } },
          additionalProperties: false,
        },
      },
      type: 'array',
      prefixItems: [narrowed('a'), narrowed('b')],
      items: false,
    };
    const rewritten = keepsAccepting(
      original,
      [[{ contract: 'a' }, { contract: 'b' }]],
      [[{ contract: 'b' }, { contract: 'a' }]],
    );
    expect(rewritten).toMatchObject({ items: { $ref: '#/$defs/Contract' }, minItems: 2, maxItems: 2 });
  });

  it('merges closed objects with the same members into one, each member the enum of its constants', () => {
    const profile = (name: string, state: string, required: boolean): Json => ({
      title: `Profile${name}`,
      type: 'object',
      additionalProperties: false,
      required: ['profile', 'state', 'fundingPlanRequired', 'clientRelease'],
      properties: {
        profile: { type: 'string', const: name },
        state: { type: 'string', const: state },
        fundingPlanRequired: { type: 'boolean', const: required },
        clientRelease: { type: 'string', pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$' },
      },
    });
    const original = {
      type: 'array',
      prefixItems: [profile('4.1.0', 'current', true), profile('4.0.0', 'frozen', false)],
      items: false,
    };
    const current = { profile: '4.1.0', state: 'current', fundingPlanRequired: true, clientRelease: '4.1.1' };
    const frozen = { profile: '4.0.0', state: 'frozen', fundingPlanRequired: false, clientRelease: '4.0.0' };
    const rewritten = keepsAccepting(original, [[current, frozen]], [[frozen, current]]);
    expect((rewritten as { items: Json }).items).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['profile', 'state', 'fundingPlanRequired', 'clientRelease'],
      properties: {
        profile: { type: 'string', enum: ['4.1.0', '4.0.0'] },
        state: { type: 'string', enum: ['current', 'frozen'] },
        fundingPlanRequired: { type: 'boolean' },
        clientRelease: { type: 'string', pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$' },
      },
    });
    // Still closed: a member neither profile has is refused by the rewrite too.
    expect(validator(rewritten)([{ ...current, extra: 1 }, frozen])).toBe(false);
  });

  it('leaves members that cannot merge as anyOf', () => {
    expect(tupleItems([{ type: 'string' }, { type: 'integer' }])).toEqual({
      anyOf: [{ type: 'string' }, { type: 'integer' }],
    });
  });

  it('turns a const array of objects into an array of one closed object over the values', () => {
    const domain = [
      { name: 'name', type: 'string' },
      { name: 'chainId', type: 'uint256' },
    ];
    const rewritten = keepsAccepting({ const: domain }, [domain], [[domain[1], domain[0]]]);
    expect(rewritten).toEqual({
      type: 'array',
      minItems: 2,
      maxItems: 2,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'type'],
        properties: {
          name: { type: 'string', enum: ['name', 'chainId'] },
          type: { type: 'string', enum: ['string', 'uint256'] },
        },
      },
    });
  });

  it("names a property's inline schema apart when oapi-codegen's name for it is another component's", () => {
    const document = {
      components: {
        schemas: {
          Image: { type: 'object', properties: { mediaType: { type: 'string', enum: ['image/png'] } } },
          ImageMediaType: { type: 'string', enum: ['image/png', 'image/gif'] },
          Other: { type: 'object', properties: { mediaType: { $ref: '#/components/schemas/ImageMediaType' } } },
        },
      },
    };
    expect(forClientGenerators(document)).toMatchObject({
      components: {
        schemas: {
          Image: { properties: { mediaType: { 'x-go-type-name': 'ImageMediaTypeValue' } } },
          Other: { properties: { mediaType: { $ref: '#/components/schemas/ImageMediaType' } } },
        },
      },
    });
  });
});

describe('the clients variant of a schema, further', () => {
  it('leaves out an anyOf of constraints only beside a type', () => {
    const rewritten = keepsAccepting(
      { type: 'string', anyOf: [{ maxLength: 4 }, { pattern: '==$' }] },
      ['abcd', 'abcdef==', ''],
      ['abcdefg', 3],
    );
    expect(rewritten).toEqual({ type: 'string' });
    // A union of kinds stays.
    expect(forClientGenerators({ type: 'string', anyOf: [{ $ref: '#/x' }, { maxLength: 2 }] })).toHaveProperty('anyOf');
  });

  it('gives a const without a type the type of its value', () => {
    expect(keepsAccepting({ const: 'base64' }, ['base64'], ['hex'])).toEqual({ const: 'base64', type: 'string' });
    expect(forClientGenerators({ const: 1000 })).toEqual({ const: 1000, type: 'integer' });
    expect(forClientGenerators({ const: false })).toEqual({ const: false, type: 'boolean' });
  });

  it("spells the null member of a union enum: [null] for openapi-generator's targets alone", () => {
    const union: Json = {
      description: 'Null before authorized.',
      oneOf: [{ type: 'null' }, { $ref: '#/$defs/WalletTransaction' }],
      $defs: { WalletTransaction: { type: 'object', required: ['to'], properties: { to: { type: 'string' } } } },
    };
    const rewritten = forOpenapiGenerator(union);
    expect(rewritten).toEqual({ ...union, oneOf: [{ enum: [null] }, { $ref: '#/$defs/WalletTransaction' }] });
    expect(forClientGenerators(union)).toEqual(union);
    // The same values: null and a transaction pass both, anything else neither.
    for (const [instance, valid] of [
      [null, true],
      [{ to: '0x' }, true],
      [{}, false],
      ['x', false],
    ] as const) {
      expect(validator(union)(instance)).toBe(valid);
      expect(validator(rewritten)(instance)).toBe(valid);
    }
  });
});

describe("the clients variant for openapi-generator's targets", () => {
  it('leaves out conditionals, and allOf members left empty', () => {
    // JSON text: a literal object with a `then` member reads as a thenable to the linter.
    const conditional = JSON.parse(`{
      "type": "object",
      "properties": { "kind": { "type": "string" }, "targets": { "type": "array" } },
      "allOf": [
        { "if": { "properties": { "kind": { "const": "direct" } } }, "then": { "required": ["targets"] } },
        { "$comment": "only a comment", "if": { "required": ["kind"] }, "then": { "required": ["targets"] } }
      ],
      "if": { "required": ["kind"] },
      "then": { "required": ["targets"] }
    }`) as Json;
    const rewritten = forOpenapiGenerator(conditional);
    expect(rewritten).toEqual({
      type: 'object',
      properties: { kind: { type: 'string' }, targets: { type: 'array' } },
    });
    // Superset: what the conditions refused passes now, and what they allowed still does.
    expect(validator(conditional)({ kind: 'direct' })).toBe(false);
    expect(validator(rewritten)({ kind: 'direct' })).toBe(true);
    expect(validator(rewritten)({ kind: 'direct', targets: [] })).toBe(true);
  });

  it('states a numeric const as its bounds and a boolean const as its type', () => {
    expect(forOpenapiGenerator({ type: 'integer', const: 10 })).toEqual({ type: 'integer', minimum: 10, maximum: 10 });
    expect(forOpenapiGenerator({ const: false })).toEqual({ type: 'boolean' });
    expect(forOpenapiGenerator({ type: 'string', const: 'x' })).toEqual({ type: 'string', const: 'x' });
    for (const value of [9, 10, 11]) {
      expect(validator(forOpenapiGenerator({ type: 'integer', const: 10 }))(value)).toBe(value === 10);
    }
  });
});

describe('the clients bundle', () => {
  const exact = bundle('service.bundled.json');
  const clients = bundle('service.clients.json');

  it('is what the rewrite makes of the exact bundle, in both variants', () => {
    const { 'x-generated': _exact, ...exactDocument } = exact;
    const { 'x-generated': _clients, ...clientsDocument } = clients;
    const { 'x-generated': _variant, ...variantDocument } = bundle('service.clients-openapi-generator.json');
    expect(forClientGenerators(exactDocument)).toEqual(clientsDocument);
    expect(forOpenapiGenerator(exactDocument)).toEqual(variantDocument);
  });

  it('keeps none of the forms the generators refuse', () => {
    const found: string[] = [];
    const walk = (node: unknown, pointer: string): void => {
      if (Array.isArray(node)) {
        for (const [i, v] of node.entries()) walk(v, `${pointer}/${i}`);
        return;
      }
      if (node === null || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if ('prefixItems' in schema) found.push(`${pointer}: prefixItems`);
      if (Array.isArray(schema.const)) found.push(`${pointer}: const array`);
      if (Array.isArray(schema.enum) && schema.enum.some((v) => v !== null && typeof v === 'object'))
        found.push(`${pointer}: enum of objects`);
      if (schema.items && typeof schema.items === 'object' && 'anyOf' in (schema.items as object)) {
        const members = (schema.items as { anyOf: unknown[] }).anyOf;
        const similar = members.every((m) => m && typeof m === 'object' && 'properties' in (m as object));
        if (similar) found.push(`${pointer}: items anyOf look-alike objects`);
      }
      for (const [k, v] of Object.entries(schema)) {
        if (k !== 'example' && k !== 'examples') walk(v, `${pointer}/${k}`);
      }
    };
    walk(clients, '');
    expect(found).toEqual([]);
  });

  it("accepts every request example of the spec where the exact bundle does, at its operation's request body", () => {
    const requestBodies = new Map<string, string>([
      ['custom-launch-create-request.v4.json', 'CustomLaunchCreateRequestV4'],
      ['custom-launch-create-request.v4--profile-4.0.0.json', 'CustomLaunchCreateRequestV4'],
      ['custom-launch-create-request.v3.json', 'CustomLaunchCreateRequestV3'],
      ['custom-launch-funding-authorization.v3.json', 'CustomLaunchFundingAuthorizationRequestV3'],
      ['multi-role-create-request.v2.json', 'MultiRoleCustomLaunchCreateRequestV2'],
      ['partner-subkey-request.v1.json', 'PartnerSubkeyRequestV1'],
      ['permit-reissue-disposition-request.v1.json', 'PermitReissueDispositionRequestV1'],
      ['module-submission-request.v0.1.json', 'ModuleSubmissionRequest'],
    ]);
    const examples = readdirSync(exampleDir).filter((f) => f.endsWith('.json'));
    expect(examples.sort()).toEqual([...requestBodies.keys()].sort());
    const compile = (document: { components: unknown }, name: string) =>
      validator({ components: document.components, $ref: `#/components/schemas/${name}` } as Json);
    for (const file of examples) {
      const name = requestBodies.get(file) as string;
      expect(clients.components.schemas[name], `${name} is a component`).toBeDefined();
      const instance = JSON.parse(readFileSync(join(exampleDir, file), 'utf8'));
      expect(compile(exact, name)(instance), `${file} under the exact ${name}`).toBe(true);
      expect(compile(clients, name)(instance), `${file} under the clients ${name}`).toBe(true);
    }
  });
});
