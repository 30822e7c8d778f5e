import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * Directory of the hand-maintained JSON Schema documents (spec/schemas). A path from fileURLToPath, not a URL's
 * pathname, which would spell a space in a folder's name (an install path) as %20.
 */
export const schemaDir = fileURLToPath(new URL('../../spec/schemas/', import.meta.url));
/** Directory of the request-body examples (spec/examples). */
export const exampleDir = fileURLToPath(new URL('../../spec/examples/', import.meta.url));
/** The `$id` prefix every schema file uses; its tail is the file name. */
export const schemaIdBase = 'https://custom-launch-api.dev/schemas/';

/**
 * Loads every schema of spec/schemas into one strict Ajv 2020-12 instance with full formats.
 * See spec/README.md (Conventions): `$id` = schemaIdBase + file name, so relative file refs resolve.
 */
export function loadSchemaRegistry(): { ajv: Ajv2020; files: string[] } {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: false });
  addFormats.default(ajv, { mode: 'full' });
  const files = readdirSync(schemaDir)
    .filter((f) => f.endsWith('.schema.json'))
    .sort();
  for (const file of files) {
    const schema = JSON.parse(readFileSync(join(schemaDir, file), 'utf8')) as { $id?: string };
    if (schema.$id !== schemaIdBase + file) {
      throw new Error(`${file}: $id must be ${schemaIdBase + file}, found ${String(schema.$id)}`);
    }
    ajv.addSchema(schema);
  }
  return { ajv, files };
}

/**
 * The schema an example validates against: `X.json` and `X--variant.json` both use `X.schema.json`.
 */
export function schemaFileForExample(exampleFile: string): string {
  const base = exampleFile.replace(/\.json$/, '').split('--')[0];
  return `${base}.schema.json`;
}

let shared: ReturnType<typeof loadSchemaRegistry> | undefined;

/**
 * The problems of `value` against one schema of spec/schemas (a file name, optionally with a `#/$defs/…` pointer),
 * none when it is valid. Compiles the registry once per process and shares it.
 */
export function schemaProblems(schemaFile: string, value: unknown): string[] {
  shared ??= loadSchemaRegistry();
  const validate = shared.ajv.getSchema(schemaIdBase + schemaFile);
  if (!validate) throw new Error(`no schema ${schemaFile} in spec/schemas`);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
}
