import { createHash } from 'node:crypto';

/**
 * Serializes a JSON value as RFC 8785 (JSON Canonicalization Scheme) canonical JSON: object keys sorted by their
 * UTF-16 code units, numbers in ECMAScript `Number.prototype.toString` form, strings escaped as `JSON.stringify`
 * escapes them, and no whitespace.
 *
 * Only plain JSON data is accepted: `null`, booleans, finite numbers, strings without lone surrogates, arrays and
 * plain objects (prototype `Object.prototype` or `null`). Anything else (non-finite numbers, `undefined` values,
 * bigints, functions, symbols, class instances such as `Date` or `Map`, sparse arrays, cycles) throws a `TypeError`.
 *
 * @param value The value to serialize.
 * @returns The canonical JSON text.
 * @throws {TypeError} When the value is not plain JSON data.
 */
export function canonicalJson(value: unknown): string {
  return serialize(value, [], new Set<object>());
}

/**
 * SHA-256 of the given bytes in this contract's digest form, `sha256:` followed by 64 lowercase hex digits.
 *
 * @param bytes The bytes to hash; a string is hashed as its UTF-8 encoding.
 * @returns The digest, e.g. `sha256:e3b0c442...`.
 */
export function sha256Digest(bytes: string | Uint8Array): string {
  // A string is hashed as UTF-8 by update() itself, without an intermediate Buffer.
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The keys and indexes from the root to a value; turned into `$.a[0]` only for an error message. */
type Trail = Array<string | number>;

function pathOf(trail: Trail): string {
  return `$${trail.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('')}`;
}

function serializeString(value: string, trail: Trail): string {
  if (!(value as string & { isWellFormed(): boolean }).isWellFormed()) {
    throw new TypeError(`canonicalJson: lone surrogate in string at ${pathOf(trail)}`);
  }
  return JSON.stringify(value);
}

function serialize(value: unknown, trail: Trail, ancestors: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) {
        throw new TypeError(`canonicalJson: non-finite number at ${pathOf(trail)}`);
      }
      // ECMAScript number serialization; -0 serializes as 0.
      return String(value);
    case 'string':
      return serializeString(value, trail);
    case 'object':
      break;
    default:
      throw new TypeError(`canonicalJson: unsupported ${typeof value} at ${pathOf(trail)}`);
  }
  const object = value as object;
  if (ancestors.has(object)) {
    throw new TypeError(`canonicalJson: cycle at ${pathOf(trail)}`);
  }
  ancestors.add(object);
  try {
    return Array.isArray(object) ? serializeArray(object, trail, ancestors) : serializeObject(object, trail, ancestors);
  } finally {
    ancestors.delete(object);
  }
}

function serializeArray(array: unknown[], trail: Trail, ancestors: Set<object>): string {
  let text = '[';
  for (let i = 0; i < array.length; i++) {
    if (!Object.hasOwn(array, i)) {
      throw new TypeError(`canonicalJson: sparse array at ${pathOf([...trail, i])}`);
    }
    trail.push(i);
    text += `${i === 0 ? '' : ','}${serialize(array[i], trail, ancestors)}`;
    trail.pop();
  }
  return `${text}]`;
}

function serializeObject(object: object, trail: Trail, ancestors: Set<object>): string {
  const prototype: unknown = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    throw new TypeError(`canonicalJson: non-plain object at ${pathOf(trail)}`);
  }
  if (Object.getOwnPropertySymbols(object).length > 0) {
    throw new TypeError(`canonicalJson: symbol-keyed property at ${pathOf(trail)}`);
  }
  const record = object as Record<string, unknown>;
  // Default sort compares UTF-16 code units, as RFC 8785 section 3.2.3 requires.
  const keys = Object.keys(record).sort();
  let text = '{';
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as string;
    const member = record[key];
    if (member === undefined) {
      throw new TypeError(`canonicalJson: undefined value at ${pathOf([...trail, key])}`);
    }
    const name = serializeString(key, trail);
    trail.push(key);
    text += `${k === 0 ? '' : ','}${name}:${serialize(member, trail, ancestors)}`;
    trail.pop();
  }
  return `${text}}`;
}

/** Orders strings by their UTF-8 bytes, the order the spec uses for paths and target ids. */
export function utf8Order(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
