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
  return serialize(value, '$', new Set<object>());
}

/**
 * SHA-256 of the given bytes in this contract's digest form, `sha256:` followed by 64 lowercase hex digits.
 *
 * @param bytes The bytes to hash; a string is hashed as its UTF-8 encoding.
 * @returns The digest, e.g. `sha256:e3b0c442...`.
 */
export function sha256Digest(bytes: string | Uint8Array): string {
  const hash = createHash('sha256');
  hash.update(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);
  return `sha256:${hash.digest('hex')}`;
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function serializeString(value: string, path: string): string {
  if (loneSurrogate.test(value)) {
    throw new TypeError(`canonicalJson: lone surrogate in string at ${path}`);
  }
  return JSON.stringify(value);
}

function serialize(value: unknown, path: string, ancestors: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) {
        throw new TypeError(`canonicalJson: non-finite number at ${path}`);
      }
      // ECMAScript number serialization; -0 serializes as 0.
      return String(value);
    case 'string':
      return serializeString(value, path);
    case 'object':
      break;
    default:
      throw new TypeError(`canonicalJson: unsupported ${typeof value} at ${path}`);
  }
  const object = value as object;
  if (ancestors.has(object)) {
    throw new TypeError(`canonicalJson: cycle at ${path}`);
  }
  ancestors.add(object);
  try {
    if (Array.isArray(object)) {
      const parts: string[] = [];
      for (let i = 0; i < object.length; i++) {
        if (!Object.hasOwn(object, i)) {
          throw new TypeError(`canonicalJson: sparse array at ${path}[${i}]`);
        }
        parts.push(serialize(object[i], `${path}[${i}]`, ancestors));
      }
      return `[${parts.join(',')}]`;
    }
    const prototype: unknown = Object.getPrototypeOf(object);
    if (prototype !== Object.prototype && prototype !== null) {
      throw new TypeError(`canonicalJson: non-plain object at ${path}`);
    }
    if (Object.getOwnPropertySymbols(object).length > 0) {
      throw new TypeError(`canonicalJson: symbol-keyed property at ${path}`);
    }
    const record = object as Record<string, unknown>;
    // Default sort compares UTF-16 code units, as RFC 8785 section 3.2.3 requires.
    const keys = Object.keys(record).sort();
    const parts: string[] = [];
    for (const key of keys) {
      const member = record[key];
      if (member === undefined) {
        throw new TypeError(`canonicalJson: undefined value at ${path}.${key}`);
      }
      parts.push(`${serializeString(key, path)}:${serialize(member, `${path}.${key}`, ancestors)}`);
    }
    return `{${parts.join(',')}}`;
  } finally {
    ancestors.delete(object);
  }
}

/** Orders strings by their UTF-8 bytes, the order the spec uses for paths and target ids. */
export function utf8Order(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
