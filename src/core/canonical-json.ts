import { createHash, type Hash } from 'node:crypto';

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
  const out: Output = { text: '', hash: null, hex: null };
  write(value, [], new Set<object>(), out);
  return out.text;
}

/** Text known to be `0x` hex (ASCII, nothing JSON escapes): src/core/hex-bytes.ts HexMemo answers it. */
export interface KnownHex {
  isHex(text: string): boolean;
}

/**
 * `sha256Digest(canonicalJson(value))`, byte for byte, without building the canonical text: the text is hashed as it
 * is written, and a long string that `known` proves to be hex is hashed as it stands (it needs no escape) instead of
 * being copied by `JSON.stringify` and again into the text.
 *
 * @param value The value to serialize and hash.
 * @param known Optional proof that a string is hex; a string it does not prove is written as `canonicalJson` writes it.
 * @returns The digest, e.g. `sha256:e3b0c442...`.
 * @throws {TypeError} When the value is not plain JSON data, as `canonicalJson` throws.
 */
export function canonicalSha256(value: unknown, known?: KnownHex): string {
  const out: Output = { text: '', hash: createHash('sha256'), hex: known ?? null };
  write(value, [], new Set<object>(), out);
  const hash = out.hash as Hash;
  hash.update(out.text);
  return `sha256:${hash.digest('hex')}`;
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

/** Where canonical text goes: appended to `text`, which a hash (when set) takes before each long hex string. */
interface Output {
  text: string;
  hash: Hash | null;
  hex: KnownHex | null;
}

/** Below this length a string is written into the text: asking for a proof would cost more than copying it. */
const longString = 256;

function pathOf(trail: Trail): string {
  return `$${trail.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('')}`;
}

// A string JSON.stringify writes as it stands between quotes: no quote, backslash, control character or surrogate.
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes U+0000-U+001F, so a plain string has none.
const plainString = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

// Member names recur from request to request: each is serialized once (a bounded map).
const serializedKeys = new Map<string, string>();
const maxSerializedKeys = 4096;

function serializeKey(key: string, trail: Trail): string {
  let text = serializedKeys.get(key);
  if (text === undefined) {
    text = `${serializeString(key, trail)}:`;
    if (serializedKeys.size >= maxSerializedKeys) serializedKeys.clear();
    serializedKeys.set(key, text);
  }
  return text;
}

function serializeString(value: string, trail: Trail): string {
  if (plainString.test(value)) return `"${value}"`;
  if (!(value as string & { isWellFormed(): boolean }).isWellFormed()) {
    throw new TypeError(`canonicalJson: lone surrogate in string at ${pathOf(trail)}`);
  }
  return JSON.stringify(value);
}

function writeString(value: string, trail: Trail, out: Output): void {
  const { hash, hex } = out;
  if (hash && hex && value.length >= longString && hex.isHex(value)) {
    // Hex is ASCII, so its latin1 bytes are its UTF-8 bytes, and JSON quotes it without an escape.
    hash.update(`${out.text}"`);
    hash.update(value, 'latin1');
    out.text = '"';
    return;
  }
  out.text += serializeString(value, trail);
}

function write(value: unknown, trail: Trail, ancestors: Set<object>, out: Output): void {
  if (value === null) {
    out.text += 'null';
    return;
  }
  switch (typeof value) {
    case 'boolean':
      out.text += value ? 'true' : 'false';
      return;
    case 'number':
      if (!Number.isFinite(value)) {
        throw new TypeError(`canonicalJson: non-finite number at ${pathOf(trail)}`);
      }
      // ECMAScript number serialization; -0 serializes as 0.
      out.text += String(value);
      return;
    case 'string':
      writeString(value, trail, out);
      return;
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
    if (Array.isArray(object)) writeArray(object, trail, ancestors, out);
    else writeObject(object, trail, ancestors, out);
  } finally {
    ancestors.delete(object);
  }
}

function writeArray(array: unknown[], trail: Trail, ancestors: Set<object>, out: Output): void {
  out.text += '[';
  for (let i = 0; i < array.length; i++) {
    if (!Object.hasOwn(array, i)) {
      throw new TypeError(`canonicalJson: sparse array at ${pathOf([...trail, i])}`);
    }
    if (i > 0) out.text += ',';
    trail.push(i);
    write(array[i], trail, ancestors, out);
    trail.pop();
  }
  out.text += ']';
}

function writeObject(object: object, trail: Trail, ancestors: Set<object>, out: Output): void {
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
  out.text += '{';
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as string;
    const member = record[key];
    if (member === undefined) {
      throw new TypeError(`canonicalJson: undefined value at ${pathOf([...trail, key])}`);
    }
    if (k > 0) out.text += ',';
    out.text += serializeKey(key, trail);
    trail.push(key);
    write(member, trail, ancestors, out);
    trail.pop();
  }
  out.text += '}';
}

/** Orders strings by their UTF-8 bytes, the order the spec uses for paths and target ids. */
export function utf8Order(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
