/*
 * The clients variant of a bundled OpenAPI document (generated/openapi/<api>.clients.json): the same contract, with
 * the JSON Schema 2020-12 forms that the pinned client generators (docs/clients.md: openapi-python-client,
 * oapi-codegen, openapi-generator's Java and Rust targets) cannot load or model stated in forms they accept. Every
 * rewrite keeps what a conforming server sends valid under the result (each rewritten schema accepts a superset of
 * the original); the server, the request validator and Schemathesis use the exact bundle. docs/clients.md lists each
 * rewrite with its reason.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: Json | undefined): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);
/** Keywords that describe and never constrain: ignored when comparing two members of a tuple. */
const annotations = new Set(['$comment', 'description', 'title', 'examples', 'example']);

function withoutAnnotations(node: Json): Json {
  if (Array.isArray(node)) return node.map(withoutAnnotations);
  if (!isObject(node)) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => !annotations.has(k))
      .map(([k, v]) => [
        k,
        k === 'properties' && isObject(v) ? propertiesWithoutAnnotations(v) : withoutAnnotations(v),
      ]),
  );
}

function propertiesWithoutAnnotations(properties: JsonObject): JsonObject {
  // Property names are data here, not keywords: a property called `title` stays.
  return Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, withoutAnnotations(v)]));
}

const key = (node: Json): string => JSON.stringify(withoutAnnotations(node));

/**
 * The rewritten document (see the file comment). Rewrites, each for a form a pinned generator refuses or models
 * wrongly:
 * 1. A boolean schema in a subschema position becomes its object form (`false` is `{not: {}}`, `true` is `{}`).
 * 2. A closed tuple (`prefixItems` + `items: false`) becomes an array of the same length over one item schema,
 *    `tupleItems` of its members.
 * 3. A `const` array becomes an array of the same length over those values.
 * 4. An `enum` whose values are all objects with the same members becomes a closed object over those members, each
 *    the enum of the values it takes.
 * 5. A component's property whose inline schema oapi-codegen would name `<Component><Property>` when another component
 *    already has that name gets `x-go-type-name: <Component><Property>Value` (`namedApart`).
 * 6. An `anyOf` or `oneOf` of constraints only (no member names a type, a `$ref`, members, items or values), beside a
 *    `type`, is left out: openapi-generator's Java target types such a property as a class `AnyOf` it never writes
 *    (`bytes` of a module submission file: `anyOf: [{maxLength}, {pattern}]`).
 * 7. A `const` without a `type` gets the JSON type of its value (the same values; the Java target types it `Object`).
 */
export function forClientGenerators(document: Json): Json {
  return namedApart(rewritten(document));
}

/**
 * The clients variant for openapi-generator's targets (Java and Rust; generated/openapi/<api>.clients-openapi-generator.json):
 * forClientGenerators, then rules 8 to 11. openapi-python-client and oapi-codegen need none of them, and rule 8's
 * spelling would cost them the optional member they now type (`X | None`, `*X`), so they read the other variant.
 * 8. A union member `{type: 'null'}` is spelled `{enum: [null]}` (the same values): openapi-generator 7.17 to 7.25
 *    resolves the first spelling to a class `ModelNull` it never writes (Java does not compile), while its normalizer
 *    (SIMPLIFY_ONEOF_ANYOF) takes the second for what it is and types the union as the other member, nullable.
 * 9. `if`/`then`/`else` are left out, and an `allOf` member left with nothing else: the Rust target stops on a
 *    property of a schema with such an `allOf` (a NullPointerException naming the model) and types every reference
 *    to a schema with a top-level `if` as an untyped JSON value.
 * 10. An integer or number `const` becomes `minimum` and `maximum` of that value: the Rust target makes it an enum
 *    named after the member, and `Default` (the page-size limit's `default`) is a trait there.
 * 11. A boolean `const` becomes its type alone: the Rust target makes it an enum of the string "false".
 */
export function forOpenapiGenerator(document: Json): Json {
  return forOpenapiGeneratorTargets(forClientGenerators(document));
}

/** Rules 8 to 11 of forOpenapiGenerator, over a document forClientGenerators made. */
function forOpenapiGeneratorTargets(node: Json): Json {
  if (Array.isArray(node)) return node.map(forOpenapiGeneratorTargets);
  if (!isObject(node)) return node;
  const out: JsonObject = Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => !conditionals.includes(k))
      .map(([k, v]) => [k, forOpenapiGeneratorTargets(v)]),
  );
  if (Array.isArray(out.allOf)) {
    const kept = out.allOf.filter(
      (member) => !isObject(member) || Object.keys(withoutAnnotations(member) ?? {}).length > 0,
    );
    if (kept.length > 0) out.allOf = kept;
    else delete out.allOf;
  }
  if (typeof out.const === 'number') {
    out.minimum = out.const;
    out.maximum = out.const;
    delete out.const;
  } else if (typeof out.const === 'boolean') delete out.const;
  for (const combinator of ['oneOf', 'anyOf']) {
    const members = out[combinator];
    if (!Array.isArray(members)) continue;
    out[combinator] = members.map((m) => (isObject(m) && key(m) === key({ type: 'null' }) ? { enum: [null] } : m));
  }
  return out;
}

function rewritten(node: Json): Json {
  if (Array.isArray(node)) return node.map(rewritten);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  const asObject = (v: Json): Json => (v === false ? { not: {} } : v === true ? {} : rewritten(v));
  for (const [k, v] of Object.entries(node)) {
    if (k === 'properties' && isObject(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, asObject(sub)]));
    } else if (['items', 'not', 'if', 'then', 'else', 'contains'].includes(k) && typeof v === 'boolean') {
      out[k] = asObject(v);
    } else if (['allOf', 'anyOf', 'oneOf'].includes(k) && Array.isArray(v)) {
      out[k] = v.map(asObject);
    } else out[k] = rewritten(v);
  }
  if (Array.isArray(out.prefixItems)) {
    const members = out.prefixItems;
    delete out.prefixItems;
    out.items = tupleItems(members);
    out.minItems = members.length;
    out.maxItems = members.length;
  }
  if (Array.isArray(out.const)) {
    const values = out.const;
    delete out.const;
    out.type = 'array';
    // Its values' enum, itself rewritten (rule 4 when the values are objects).
    out.items = rewritten({
      enum: [...new Set(values.map((v) => JSON.stringify(v)))].map((v) => JSON.parse(v) as Json),
    });
    out.minItems = values.length;
    out.maxItems = values.length;
  }
  for (const combinator of ['anyOf', 'oneOf']) {
    const members = out[combinator];
    if (typeof out.type === 'string' && Array.isArray(members) && members.every(constraintOnly)) delete out[combinator];
  }
  if ('const' in out && out.type === undefined && !Array.isArray(out.const)) {
    const type = jsonType(out.const);
    if (type !== undefined) out.type = type;
  }
  if (Array.isArray(out.enum) && out.enum.length > 0 && out.enum.every(isObject)) {
    Object.assign(out, objectOfEnumValues(out.enum as JsonObject[]));
    delete out.enum;
  }
  return out;
}

/** Keywords that give a schema its kind; a schema with none of them only constrains (rule 6). */
const kinds = ['type', '$ref', 'properties', 'items', 'prefixItems', 'enum', 'const', 'allOf', 'anyOf', 'oneOf', 'not'];
const constraintOnly = (member: Json): boolean => isObject(member) && !kinds.some((k) => k in member);

/** The conditional keywords rule 9 leaves out. */
const conditionals = ['if', 'then', 'else'];

/** The JSON Schema type of a value; undefined for objects and arrays. */
function jsonType(value: Json | undefined): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'boolean' || typeof value === 'string') return typeof value;
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return undefined;
}

/**
 * One item schema for a tuple's members. The generators model an `anyOf` of look-alike objects as a union whose
 * branches cannot be told apart (duplicate methods in Go, a dropped schema in Python), so members are merged where
 * they can be:
 * - members that differ only in annotations are one schema, with the annotations they share;
 * - string constants are one string enum;
 * - members that each narrow the same `$ref` (`allOf: [{$ref}, {properties: …}]`) are that `$ref`;
 * - closed objects with the same property names are one closed object whose every property merges the members'
 *   (one schema when they agree, an enum when each is a constant of one type, else `anyOf`);
 * - anything else is `anyOf` over the distinct members.
 * The position each member held is lost; the description keeps it, and the server checks it.
 */
export function tupleItems(members: Json[]): Json {
  const unique = distinct(members);
  if (unique.length === 1) return commonAnnotations(members);
  const merged = mergedConstants(unique);
  if (merged) return merged;
  const refs = unique.map(narrowedRef);
  if (refs.every((r) => r !== undefined && r === refs[0])) return { $ref: refs[0] as string };
  const objects = mergedObjects(unique);
  return objects ?? { anyOf: unique };
}

/** The schemas without repeats (compared without annotations), each where it first appears. */
function distinct(schemas: Json[]): Json[] {
  const seen = new Map<string, Json>();
  for (const schema of schemas) if (!seen.has(key(schema))) seen.set(key(schema), schema);
  return [...seen.values()];
}

/** The first of schemas equal but for annotations, keeping only the annotations they all share. */
function commonAnnotations(schemas: Json[]): Json {
  const [first] = schemas;
  if (!isObject(first)) return first ?? {};
  const shared = Object.entries(first).filter(
    ([k, v]) => !annotations.has(k) || schemas.every((s) => isObject(s) && JSON.stringify(s[k]) === JSON.stringify(v)),
  );
  return Object.fromEntries(shared);
}

/** `{type, enum}` when every schema is a `const` of one JSON type; undefined otherwise. */
function mergedConstants(schemas: Json[]): Json | undefined {
  const consts = schemas.map((s) => (isObject(s) && 'const' in s ? s.const : undefined));
  if (consts.some((c) => c === undefined || c === null || typeof c === 'object')) return undefined;
  const types = new Set(consts.map((c) => (Number.isInteger(c) ? 'integer' : typeof c)));
  if (types.size !== 1) return undefined;
  const [type] = [...types];
  if (type === 'boolean') return { type: 'boolean' };
  return { type: type as string, enum: [...new Set(consts)] as Json[] };
}

/** The `$ref` a schema of the form `allOf: [{$ref}, {type: object, properties}]` narrows; undefined otherwise. */
function narrowedRef(schema: Json): string | undefined {
  if (!isObject(schema) || !Array.isArray(schema.allOf) || Object.keys(withoutAnnotations(schema) ?? {}).length !== 1)
    return undefined;
  const [base, ...rest] = schema.allOf;
  if (!isObject(base) || typeof base.$ref !== 'string') return undefined;
  const narrows = (s: Json) =>
    isObject(s) && Object.keys(withoutAnnotations(s) ?? {}).every((k) => k === 'type' || k === 'properties');
  return rest.every(narrows) ? base.$ref : undefined;
}

/** One closed object over objects with the same property names and closure; undefined when they differ. */
function mergedObjects(schemas: Json[]): Json | undefined {
  if (!schemas.every((s) => isObject(s) && s.type === 'object' && isObject(s.properties))) return undefined;
  const objects = schemas as Array<JsonObject & { properties: JsonObject }>;
  const [first] = objects;
  if (!first) return undefined;
  const names = Object.keys(first.properties).sort().join('\n');
  const shape = (o: JsonObject) => JSON.stringify([o.required ?? [], o.additionalProperties ?? null]);
  if (!objects.every((o) => Object.keys(o.properties).sort().join('\n') === names && shape(o) === shape(first)))
    return undefined;
  const properties: JsonObject = {};
  for (const name of Object.keys(first.properties)) {
    const each = objects.map((o) => o.properties[name] as Json);
    const unique = distinct(each);
    properties[name] = unique.length === 1 ? commonAnnotations(each) : (mergedConstants(unique) ?? { anyOf: unique });
  }
  const merged: JsonObject = { type: 'object', properties };
  if (first.required !== undefined) merged.required = first.required;
  if (first.additionalProperties !== undefined) merged.additionalProperties = first.additionalProperties;
  return merged;
}

/** `{type: object, required, properties: {name: {type, enum}}}` over objects with the same member names. */
function objectOfEnumValues(values: JsonObject[]): JsonObject {
  const names = [...new Set(values.flatMap((v) => Object.keys(v)))];
  const properties: JsonObject = {};
  for (const name of names) {
    const seen = [...new Set(values.map((v) => JSON.stringify(v[name] ?? null)))].map((v) => JSON.parse(v) as Json);
    properties[name] = mergedConstants(seen.map((c) => ({ const: c }))) ?? { enum: seen };
  }
  const required = names.filter((name) => values.every((v) => name in v));
  return { type: 'object', additionalProperties: false, required, properties };
}

/**
 * Rule 5 of forClientGenerators: oapi-codegen names the inline schema of property `p` of component `C` `C` + `P` and
 * stops (`duplicate typename`) when a component already has that name (`Image.mediaType` against `ImageMediaType`).
 * Such a property schema gets oapi-codegen's own naming extension; every other generator ignores `x-` keywords.
 */
function namedApart(document: Json): Json {
  const schemas = isObject(document) && isObject(document.components) ? document.components.schemas : undefined;
  if (!isObject(schemas)) return document;
  const names = new Set(Object.keys(schemas));
  for (const [component, schema] of Object.entries(schemas)) {
    if (!isObject(schema) || !isObject(schema.properties)) continue;
    for (const [property, sub] of Object.entries(schema.properties)) {
      const derived = `${component}${property.charAt(0).toUpperCase()}${property.slice(1)}`;
      if (isObject(sub) && sub.$ref === undefined && names.has(derived)) sub['x-go-type-name'] = `${derived}Value`;
    }
  }
  return document;
}
