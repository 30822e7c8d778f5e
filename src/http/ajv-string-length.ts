/*
 * The string length Ajv checks minLength and maxLength with (the validators of spec/openapi/*.yaml compiled by
 * express-openapi-validator): JSON Schema counts code points, so Ajv walks every UTF-16 unit of a string to count
 * surrogate pairs. A string without a single pair has as many code points as units, and a regular expression answers
 * that without a walk (at once for text that holds no character beyond U+00FF, as hex does). A maximal V4 request
 * carries 786 KB of hex, and the walk was 2.4 ms of its CPU. The count is unchanged for every string.
 */
import { createRequire } from 'node:module';

type Length = ((text: string) => number) & { code?: string };

const runtime = createRequire(import.meta.url)('ajv/dist/runtime/ucs2length') as { default: Length };
const walk = runtime.default;
const surrogatePair = /[\uD800-\uDBFF][\uDC00-\uDFFF]/;

/**
 * Code points of a string as Ajv counts them for minLength/maxLength: its UTF-16 length when it holds no surrogate
 * pair, else Ajv's own count.
 */
export const stringLength: Length = (text) => (surrogatePair.test(text) ? walk(text) : text.length);
stringLength.code = walk.code;

// Validators read the function when they compile, so this runs before the app builds any.
runtime.default = stringLength;
