import { readFileSync } from 'node:fs';
import { LocalCheckError } from './local-check-error.ts';

/** The exact bytes of a request file (what is sent, never re-serialized); REQUEST_UNREADABLE when it cannot be read. */
export function readRequestBytes(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new LocalCheckError(
      'REQUEST_UNREADABLE',
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
}
