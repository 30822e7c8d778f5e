/*
 * Compiles every schema in spec/schemas (Ajv 2020-12, strict, full formats) and validates every example in
 * spec/examples against its schema. Exits 1 on the first class of failure, printing all problems found.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exampleDir, loadSchemaRegistry, schemaFileForExample, schemaIdBase } from '../src/spec/schema-registry.ts';

const { ajv, files } = loadSchemaRegistry();
let failures = 0;
for (const file of files) {
  try {
    ajv.getSchema(schemaIdBase + file);
  } catch (err) {
    failures++;
    console.error(`schema ${file}: ${(err as Error).message}`);
  }
}
const examples = readdirSync(exampleDir)
  .filter((f) => f.endsWith('.json'))
  .sort();
for (const example of examples) {
  const schemaFile = schemaFileForExample(example);
  const validate = ajv.getSchema(schemaIdBase + schemaFile);
  if (!validate) {
    failures++;
    console.error(`example ${example}: no schema ${schemaFile}`);
    continue;
  }
  const data: unknown = JSON.parse(readFileSync(join(exampleDir, example), 'utf8'));
  if (!validate(data)) {
    failures++;
    console.error(`example ${example}: ${ajv.errorsText(validate.errors, { separator: '\n  ' })}`);
  }
}
console.log(`${files.length} schemas compiled, ${examples.length} examples checked, ${failures} failures`);
process.exit(failures === 0 ? 0 : 1);
