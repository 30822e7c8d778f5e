/*
 * Strict JSON text at the door (spec/openapi/components/responses.yaml, 400 MALFORMED_JSON): the exact bytes a request
 * hash is taken over must be UTF-8 without a byte-order mark, and one JSON value in which no object repeats a member
 * name and no string holds a lone surrogate escape, so the hash, the validator and any canonical form (RFC 8785) can
 * never read two different documents in the same bytes. Pure: no I/O and no dependency.
 *
 * The scan reads the bytes themselves: every byte JSON gives a meaning to is ASCII, and no byte of a multi-byte UTF-8
 * sequence is, so the bytes need no decoding once isUtf8 has checked them (the body parser decodes them once more
 * for JSON.parse). A member name is decoded only when it holds an escape or an issue names it.
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

// Byte values the scanner reads.
const quote = 0x22;
const backslash = 0x5c;
const minus = 0x2d;
const plus = 0x2b;
const dot = 0x2e;
const zero = 0x30;
const nine = 0x39;
const colon = 0x3a;
const comma = 0x2c;
const openObject = 0x7b;
const closeObject = 0x7d;
const openArray = 0x5b;
const closeArray = 0x5d;
/** The single-character escapes after a backslash: `" \ / b f n r t`. */
const simpleEscapes = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const literals = new Map([
  [0x74, Buffer.from('true')],
  [0x66, Buffer.from('false')],
  [0x6e, Buffer.from('null')],
]);
/** Below this many members an object's names are kept in an array, above in a set. */
const namesInArray = 16;

class NotJson extends Error {}

/** An open object: its member count, the current member name's bytes, and the names read so far. */
interface ObjectFrame {
  kind: 'object';
  count: number;
  keyStart: number;
  keyEnd: number;
  names: string[] | Set<string>;
}
/** An open array: its item count and the index of the item being read. */
interface ArrayFrame {
  kind: 'array';
  count: number;
}
type Frame = ObjectFrame | ArrayFrame;

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
  if (!isUtf8(bytes)) return [issue(bodyRoot, 'the body is not valid UTF-8')];
  const issues: StrictJsonIssue[] = [];
  try {
    new Scanner(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), issues).run();
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

/** One pass over the bytes, iterative so a deeply nested body cannot overflow the stack. */
class Scanner {
  private i = 0;
  /** The index of the closing quote of the last string read. */
  private closed = 0;
  private readonly stack: Frame[] = [];

  constructor(
    private readonly b: Buffer,
    private readonly issues: StrictJsonIssue[],
  ) {}

  run(): void {
    this.ws();
    do {
      this.value();
      if (this.issues.length >= maxIssues) return;
    } while (this.afterValue());
    if (this.i !== this.b.length) this.fail('unexpected text after the JSON value');
  }

  /** Reads one value; an object or array is entered (pushed) and its first member read on the next turn. */
  private value(): void {
    const c = this.b[this.i];
    if (c === openObject) {
      this.i++;
      this.ws();
      this.stack.push({ kind: 'object', count: 0, keyStart: 0, keyEnd: 0, names: [] });
      return;
    }
    if (c === openArray) {
      this.i++;
      this.ws();
      this.stack.push({ kind: 'array', count: 0 });
      return;
    }
    if (c === quote) {
      this.string(false);
    } else {
      const word = c === undefined ? undefined : literals.get(c);
      if (word) {
        for (let k = 0; k < word.length; k++) if (this.b[this.i + k] !== word[k]) this.fail('unexpected token');
        this.i += word.length;
      } else {
        this.number();
      }
    }
    this.ws();
  }

  /**
   * `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, the longest prefix that matches: a fraction or an exponent
   * without its digits is left unread (and fails as the text after the number).
   */
  private number(): void {
    const { b } = this;
    let i = this.i;
    if (b[i] === minus) i++;
    if (b[i] === zero) {
      i++;
    } else {
      const first = i;
      i = this.digits(i);
      if (i === first) this.fail('unexpected token');
    }
    if (b[i] === dot) {
      const after = this.digits(i + 1);
      if (after > i + 1) i = after;
    }
    if (b[i] === 0x65 || b[i] === 0x45) {
      const sign = b[i + 1] === plus || b[i + 1] === minus ? 1 : 0;
      const after = this.digits(i + 1 + sign);
      if (after > i + 1 + sign) i = after;
    }
    this.i = i;
  }

  private digits(from: number): number {
    const { b } = this;
    let i = from;
    for (let c = b[i]; c !== undefined && c >= zero && c <= nine; c = b[++i]);
    return i;
  }

  /**
   * After a value (or just inside a new container): closes finished containers and moves to the next value to read;
   * false at the end of the top-level value.
   */
  private afterValue(): boolean {
    for (;;) {
      const top = this.stack.at(-1);
      if (!top) return false;
      const c = this.b[this.i];
      const close = top.kind === 'object' ? closeObject : closeArray;
      if (c === close) {
        this.i++;
        this.ws();
        this.stack.pop();
        continue;
      }
      if (top.count > 0) {
        if (c !== comma) this.fail(`expected ',' or '${top.kind === 'object' ? '}' : ']'}'`);
        this.i++;
        this.ws();
      }
      if (top.kind === 'object') this.member(top);
      top.count++;
      return true;
    }
  }

  /** Reads a member name and its colon; a repeated name is an issue naming the object and the name. */
  private member(frame: ObjectFrame): void {
    if (this.b[this.i] !== quote) this.fail('expected a member name');
    const start = this.i + 1;
    const escaped = this.string(true);
    const close = this.closed;
    frame.keyStart = start;
    frame.keyEnd = close;
    const name = escaped ? comparableName(this.decodeName(start, close)) : this.b.toString('latin1', start, close);
    if (hasName(frame, name)) {
      const shown = this.decodeName(start, close);
      this.issues.push(issue(this.pointer(this.stack.length - 1), `duplicate member name ${JSON.stringify(shown)}`));
    } else {
      addName(frame, name);
    }
    if (this.b[this.i] !== colon) this.fail("expected ':'");
    this.i++;
    this.ws();
  }

  /** A member name's value: its bytes decoded as UTF-8, its escapes undone (the scan already checked them). */
  private decodeName(start: number, end: number): string {
    const raw = this.b.toString('utf8', start, end);
    return raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
  }

  /** The JSON pointer through the keys of the first `depth` open containers (built only for an issue). */
  private pointer(depth: number): string {
    let at = bodyRoot;
    for (const frame of this.stack.slice(0, depth)) {
      // An array's count was taken for the item being read.
      const token = frame.kind === 'object' ? this.decodeName(frame.keyStart, frame.keyEnd) : String(frame.count - 1);
      at += `/${pointerToken(token)}`;
    }
    return at;
  }

  /**
   * Reads a string and the whitespace after it; answers whether it held an escape. A lone surrogate escape is an issue
   * at the string (a member name's: at its object).
   */
  private string(name: boolean): boolean {
    const { b } = this;
    let i = this.i + 1;
    let escaped = false;
    for (;;) {
      const c = b[i];
      if (c === quote) break;
      if (c === backslash) {
        escaped = true;
        this.i = i;
        i = this.escape(name);
        continue;
      }
      if (c === undefined) {
        this.i = i;
        this.fail('unterminated string');
      }
      if (c < 0x20) {
        this.i = i;
        this.fail('a control character must be escaped in a string');
      }
      i++;
    }
    this.closed = i;
    this.i = i + 1;
    this.ws();
    return escaped;
  }

  /**
   * Reads one escape at the backslash at `this.i` and answers the index after it; a high surrogate escape must be
   * followed by a low one, and a low one preceded.
   */
  private escape(name: boolean): number {
    const at = this.i;
    const kind = this.b[at + 1];
    if (kind !== 0x75) {
      if (kind === undefined || !simpleEscapes.has(kind)) this.fail('invalid escape in a string');
      return at + 2;
    }
    const unit = this.unicodeEscape(at);
    if (unit >= 0xdc00 && unit <= 0xdfff) {
      this.loneSurrogate(name, unit);
    } else if (unit >= 0xd800 && unit <= 0xdbff) {
      const pairs = this.b[at + 6] === backslash && this.b[at + 7] === 0x75;
      const low = pairs ? this.unicodeEscape(at + 6) : -1;
      if (low >= 0xdc00 && low <= 0xdfff) return at + 12;
      this.loneSurrogate(name, unit);
    }
    return at + 6;
  }

  /** The code unit of the `\uXXXX` escape at `at`. */
  private unicodeEscape(at: number): number {
    let unit = 0;
    for (let k = at + 2; k < at + 6; k++) {
      const d = hexValue(this.b[k]);
      if (d < 0) {
        this.i = at;
        this.fail('invalid \\u escape in a string');
      }
      unit = unit * 16 + d;
    }
    return unit;
  }

  private loneSurrogate(name: boolean, unit: number): void {
    const written = `\\u${unit.toString(16).padStart(4, '0')}`;
    const at = this.pointer(name ? this.stack.length - 1 : this.stack.length);
    this.issues.push(issue(at, `a lone surrogate escape ${written} (a surrogate must be one half of a pair)`));
  }

  private ws(): void {
    const { b } = this;
    for (;;) {
      const c = b[this.i];
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.i++;
    }
  }

  /** Fails at `this.i`, counted in characters of the decoded text as the message has always counted it. */
  private fail(what: string): never {
    const at =
      this.i >= this.b.length ? 'at the end of the body' : `at character ${this.b.toString('utf8', 0, this.i).length}`;
    throw new NotJson(`not valid JSON: ${what} ${at}`);
  }
}

/** The value of a hex digit byte, -1 for any other byte. */
function hexValue(c: number | undefined): number {
  if (c === undefined) return -1;
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/**
 * The form in which an unescaped name compares with a name read as raw bytes (their latin1 rendering): its UTF-8
 * bytes the same way. A name holding a lone surrogate has no UTF-8 bytes and no raw name can equal it: it is kept in
 * a form no latin1 rendering takes.
 */
function comparableName(name: string): string {
  const wellFormed = (name as string & { isWellFormed(): boolean }).isWellFormed();
  return wellFormed ? Buffer.from(name, 'utf8').toString('latin1') : `\uffff${name}`;
}

function hasName(frame: ObjectFrame, name: string): boolean {
  return Array.isArray(frame.names) ? frame.names.includes(name) : frame.names.has(name);
}

function addName(frame: ObjectFrame, name: string): void {
  if (!Array.isArray(frame.names)) {
    frame.names.add(name);
  } else if (frame.names.length < namesInArray) {
    frame.names.push(name);
  } else {
    frame.names = new Set([...frame.names, name]);
  }
}
