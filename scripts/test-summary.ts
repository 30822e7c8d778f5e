/*
 * Prints vitest's JSON report as one plain closing line, `tests: N passed, N failed, N skipped`, so any reader of
 * the CI log sees the count (vitest's own summary is printed above it).
 */
import { existsSync, readFileSync } from 'node:fs';

const path = process.argv[2] ?? 'build/vitest-report.json';
if (!existsSync(path)) {
  console.log('tests: 0 passed, 1 failed (vitest wrote no report)');
  process.exit(0);
}
const report = JSON.parse(readFileSync(path, 'utf8')) as {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
};
console.log(
  `tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests + report.numTodoTests} skipped`,
);
