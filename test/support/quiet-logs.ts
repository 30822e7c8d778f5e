import { logger } from '../../src/observability/logger.ts';

// In a test worker the server code runs in-process: its log lines (a line per status change of every lifecycle the
// tests drive) would interleave with the runner's report. A test that reads them takes them with captureLogs; server
// processes the tests start log at their own LOG_LEVEL. TEST_LOG_LEVEL=info shows them.
logger.level = process.env.TEST_LOG_LEVEL ?? 'silent';
