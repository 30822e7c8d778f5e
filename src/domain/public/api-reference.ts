import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The one reference to another origin in Redoc's browser bundle: the sidebar's Redocly logo image. */
export const redocLogoUrl = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
/** What the logo's URL becomes: an empty inline SVG image (single quotes: it sits in a double-quoted JS string). */
export const redocLogoReplacement = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E";
/** The source-map comment that ends Redoc's browser bundle; the map is not served, so the comment is left out. */
export const redocSourceMapComment = '\n//# sourceMappingURL=redoc.standalone.js.map';

let page: Buffer | undefined;
let script: Buffer | undefined;

/** The path of Redoc's browser bundle as installed (the npm package `redoc`). */
export function redocBundlePath(): string {
  return createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
}

/**
 * The exact bytes of the API reference page, src/public/api-reference/index.html, read once: what
 * getApiReferencePage serves (spec/openapi/paths/docs.yaml).
 */
export function apiReferencePageBytes(): Buffer {
  page ??= readFileSync(new URL('../../public/api-reference/index.html', import.meta.url));
  return page;
}

/**
 * Redoc's browser bundle as getApiReferenceScript serves it (spec/openapi/paths/docs-redoc-script.yaml), read and
 * rewritten once: the installed file with its logo image inline and without its source-map comment, so the page
 * asks no other origin for anything. A bundle that no longer holds exactly one of each is another Redoc than the
 * one this was written for: refused at start-up rather than served with a request to a CDN.
 */
export function redocScriptBytes(): Buffer {
  script ??= Buffer.from(rewriteRedocBundle(readFileSync(redocBundlePath(), 'utf8')), 'utf8');
  return script;
}

/** The rewrite of redocScriptBytes, on the bundle's text. */
export function rewriteRedocBundle(text: string): string {
  for (const part of [redocLogoUrl, redocSourceMapComment]) {
    const count = text.split(part).length - 1;
    if (count !== 1) throw new Error(`Redoc's browser bundle holds ${count} copies of ${JSON.stringify(part)}, not 1`);
  }
  return text.replace(redocLogoUrl, redocLogoReplacement).replace(redocSourceMapComment, '');
}
