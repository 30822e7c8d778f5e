/*
 * Strict JSON text at the door (spec/openapi/components/responses.yaml, 400 MALFORMED_JSON): the exact bytes a request
 * hash is taken over must be UTF-8 without a byte-order mark, and one JSON value in which no object repeats a member
 * name and no string holds a lone surrogate escape, so the hash, the validator and any canonical form (RFC 8785) can
 * never read two different documents in the same bytes. Pure: no I/O and no dependency. Bytes JSON.parse has read are
 * checked without a scan when they can hold no issue (parsedJsonIssues); the scanner answers for the others.
 */
import { isUtf8 } from 'node:buffer';

/** One reason a body is not strict JSON text: a JSON pointer under `/body` (`/body` for the bytes as a whole). */
export interface StrictJsonIssue {
  location: string;
  message: string;
}

/** At most this many issues are reported (spec/schemas/api-error.schema.json `issues.maxItems`). */
const maxIssues = 50;
const maxText = 512;
const bodyRoot = '/body';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
// Byte values the check after JSON.parse reads.
const quote = 0x22;
const backslash = 0x5c;
const colon = 0x3a;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings must escape U+0000-U+001F, so a run stops at them.
const plainRun = /[^"\\\u0000-\u001f]*/y;
const numberToken = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const hex4 = /^[0-9a-fA-F]{4}$/;
const escapes: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

class NotJson extends Error {}

/** An open container: how many members or items it has read, and the name or index of the one being read. */
type Frame =
  | { kind: 'object'; count: number; key: string; names: Set<string> }
  | { kind: 'array'; count: number; key: number };

/**
 * The reasons `bytes` are not one strict JSON text (an empty list when they are): not UTF-8, a leading byte-order
 * mark (EF BB BF), a syntax error, a member name repeated in one object (names compared after unescaping, so `"a"` and
 * `"\u0061"` are the same name), or a lone surrogate escape in a string or member name. Empty bytes pass: the body
 * parser reads them as no body. Implements the MALFORMED_JSON rule of spec/openapi/components/responses.yaml.
 */
export function strictJsonIssues(bytes: Uint8Array): StrictJsonIssue[] {
  if (bytes.length === 0) return [];
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return [issue(bodyRoot, 'the body starts with a byte-order mark (EF BB BF); send UTF-8 JSON without one')];
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return [issue(bodyRoot, 'the body is not valid UTF-8')];
  }
  const issues: StrictJsonIssue[] = [];
  try {
    new Scanner(text, issues).run();
  } catch (err) {
    if (!(err instanceof NotJson)) throw err;
    issues.push(issue(bodyRoot, err.message));
  }
  return issues.slice(0, maxIssues);
}

/**
 * strictJsonIssues of bytes that JSON.parse has already read as `parsed`, answered without a scan when the bytes can
 * hold no issue: UTF-8 without a byte-order mark, no `\\uD` escape (a surrogate escape, lone or paired), and as many
 * member names in the text as keys in `parsed` (a repeated name makes one key of two members). Otherwise, or with any
 * doubt, strictJsonIssues answers. `parsed` must be JSON.parse of these bytes decoded as UTF-8.
 */
export function parsedJsonIssues(bytes: Uint8Array, parsed: unknown): StrictJsonIssue[] {
  if (bytes.length === 0) return [];
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const clear =
    !(b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) &&
    isUtf8(b) &&
    b.indexOf('\\ud', 0, 'latin1') === -1 &&
    b.indexOf('\\uD', 0, 'latin1') === -1 &&
    memberNames(b) === keysOf(parsed);
  return clear ? [] : strictJsonIssues(bytes);
}

/**
 * The member names of a JSON text (the strings a colon follows), found from quote to quote; -1 when a string does
 * not close. Outside its strings JSON has no quote, so the quote after a closed string opens the next one.
 */
function memberNames(b: Buffer): number {
  let names = 0;
  let open = b.indexOf(quote);
  while (open !== -1) {
    let close = b.indexOf(quote, open + 1);
    while (close !== -1 && escapedAt(b, close)) close = b.indexOf(quote, close + 1);
    if (close === -1) return -1;
    let next = close + 1;
    while (b[next] === 0x20 || b[next] === 0x0a || b[next] === 0x0d || b[next] === 0x09) next++;
    if (b[next] === colon) names++;
    open = b.indexOf(quote, next);
  }
  return names;
}

/** Whether the quote at `at` is escaped: an odd run of backslashes before it. */
function escapedAt(b: Buffer, at: number): boolean {
  let k = at - 1;
  while (b[k] === backslash) k--;
  return (at - 1 - k) % 2 === 1;
}

/** The keys of every object in a parsed JSON value. */
function keysOf(value: unknown): number {
  let keys = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const item of v) pending.push(item);
    } else {
      for (const key in v) {
        keys++;
        pending.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return keys;
}

function issue(location: string, message: string): StrictJsonIssue {
  return { location: location.slice(0, maxText), message: message.slice(0, maxText) };
}

/** RFC 6901: `~` and `/` in a reference token are escaped as `~0` and `~1`. */
function pointerToken(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** One pass over decoded text, iterative so a deeply nested body cannot overflow the stack. */
class Scanner {
  private i = 0;
  private readonly stack: Frame[] = [];

  constructor(
    private readonly text: string,
    private readonly issues: StrictJsonIssue[],
  ) {}

  run(): void {
    this.ws();
    do {
      this.value();
      if (this.issues.length >= maxIssues) return;
    } while (this.afterValue());
    if (this.i !== this.text.length) this.fail('unexpected text after the JSON value');
  }

  /** Reads one value; an object or array is entered (pushed) and its first member read on the next turn. */
  private value(): void {
    const c = this.text[this.i];
    if (c === '{' || c === '[') {
      this.i++;
      this.ws();
      const frame: Frame =
        c === '{' ? { kind: 'object', count: 0, key: '', names: new Set() } : { kind: 'array', count: 0, key: 0 };
      this.stack.push(frame);
      return;
    }
    if (c === '"') {
      this.string(false);
    } else if (c === 't' || c === 'f' || c === 'n') {
      const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
      if (!this.text.startsWith(word, this.i)) this.fail('unexpected token');
      this.i += word.length;
    } else {
      numberToken.lastIndex = this.i;
      if (!numberToken.test(this.text) || numberToken.lastIndex === this.i) this.fail('unexpected token');
      this.i = numberToken.lastIndex;
    }
    this.ws();
  }

  /**
   * After a value (or just inside a new container): closes finished containers and moves to the next value to read;
   * false at the end of the top-level value.
   */
  private afterValue(): boolean {
    for (;;) {
      const top = this.stack.at(-1);
      if (!top) return false;
      const c = this.text[this.i];
      const close = top.kind === 'object' ? '}' : ']';
      if (c === close) {
        this.i++;
        this.ws();
        this.stack.pop();
        continue;
      }
      if (top.count > 0) {
        if (c !== ',') this.fail(`expected ',' or '${close}'`);
        this.i++;
        this.ws();
      }
      if (top.kind === 'array') top.key = top.count;
      else this.member(top);
      top.count++;
      return true;
    }
  }

  /** Reads a member name and its colon; a repeated name is an issue naming the object and the name. */
  private member(frame: Frame & { kind: 'object' }): void {
    if (this.text[this.i] !== '"') this.fail('expected a member name');
    const name = this.string(true);
    if (frame.names.has(name)) {
      this.issues.push(issue(this.pointer(this.stack.length - 1), `duplicate member name ${JSON.stringify(name)}`));
    }
    frame.names.add(name);
    frame.key = name;
    if (this.text[this.i] !== ':') this.fail("expected ':'");
    this.i++;
    this.ws();
  }

  /** The JSON pointer through the keys of the first `depth` open containers (built only for an issue). */
  private pointer(depth: number): string {
    return (
      bodyRoot +
      this.stack
        .slice(0, depth)
        .map((f) => `/${pointerToken(String(f.key))}`)
        .join('')
    );
  }

  /**
   * Reads a string; a member name's unescaped value is returned. A lone surrogate escape is an issue at the string
   * (a member name's: at its object).
   */
  private string(name: boolean): string {
    const { text } = this;
    this.i++;
    const parts: string[] = [];
    for (;;) {
      plainRun.lastIndex = this.i;
      plainRun.test(text);
      if (name) parts.push(text.slice(this.i, plainRun.lastIndex));
      this.i = plainRun.lastIndex;
      const c = text[this.i];
      if (c === '"') break;
      if (c === undefined) this.fail('unterminated string');
      if (c !== '\\') this.fail('a control character must be escaped in a string');
      const unescaped = this.escape(name);
      if (name) parts.push(unescaped);
    }
    this.i++;
    this.ws();
    return parts.join('');
  }

  /** Reads one escape at a backslash; a high surrogate escape must be followed by a low one, and a low one preceded. */
  private escape(name: boolean): string {
    const { text } = this;
    const kind = text[this.i + 1] ?? '';
    if (kind !== 'u') {
      const plain = escapes[kind];
      if (plain === undefined) this.fail('invalid escape in a string');
      this.i += 2;
      return plain as string;
    }
    const unit = this.unicodeEscape(this.i);
    this.i += 6;
    if (unit >= 0xdc00 && unit <= 0xdfff) {
      this.loneSurrogate(name, unit);
    } else if (unit >= 0xd800 && unit <= 0xdbff) {
      const low = text.startsWith('\\u', this.i) ? this.unicodeEscape(this.i) : -1;
      if (low >= 0xdc00 && low <= 0xdfff) {
        this.i += 6;
        return String.fromCharCode(unit, low);
      }
      this.loneSurrogate(name, unit);
    }
    return String.fromCharCode(unit);
  }

  private unicodeEscape(at: number): number {
    const digits = this.text.slice(at + 2, at + 6);
    if (!hex4.test(digits)) this.fail('invalid \\u escape in a string');
    return Number.parseInt(digits, 16);
  }

  private loneSurrogate(name: boolean, unit: number): void {
    const written = `\\u${unit.toString(16).padStart(4, '0')}`;
    const at = this.pointer(name ? this.stack.length - 1 : this.stack.length);
    this.issues.push(issue(at, `a lone surrogate escape ${written} (a surrogate must be one half of a pair)`));
  }

  private ws(): void {
    const { text } = this;
    for (;;) {
      const c = text.charCodeAt(this.i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.i++;
    }
  }

  private fail(what: string): never {
    const at = this.i >= this.text.length ? 'at the end of the body' : `at character ${this.i}`;
    throw new NotJson(`not valid JSON: ${what} ${at}`);
  }
}
