import { readFileSync } from 'node:fs';

const generated = (name: string) => new URL(`../../../generated/openapi/${name}`, import.meta.url);
let service: Buffer | undefined;
let developerApi: Buffer | undefined;

/**
 * The exact bytes of generated/openapi/service.bundled.json, read once: what getServiceOpenApiDocument serves
 * (spec/openapi/paths/openapi-document.yaml).
 */
export function serviceOpenApiBytes(): Buffer {
  service ??= readFileSync(generated('service.bundled.json'));
  return service;
}

/**
 * The exact bytes of generated/openapi/developer-api.bundled.json, read once: what getDeveloperApiOpenApiDocument
 * serves (spec/openapi/paths/openapi-developer-api-document.yaml).
 */
export function developerApiOpenApiBytes(): Buffer {
  developerApi ??= readFileSync(generated('developer-api.bundled.json'));
  return developerApi;
}
