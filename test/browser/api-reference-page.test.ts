import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../support/process.ts';

// The API reference page (getApiReferencePage, spec/openapi/paths/docs.yaml) in a real browser: Debian's Chromium,
// headless, against the real server process. Redoc renders /openapi.json from the server alone, nothing is asked of
// another origin, the page's Content-Security-Policy holds without a violation, and the console stays free of errors.
const chromiumPath = '/usr/bin/chromium';
const skipReason = existsSync(chromiumPath)
  ? undefined
  : `no Chromium at ${chromiumPath}; install it with \`apt-get install -y chromium\` (make unit does, as root)`;
if (skipReason) console.log(`test/browser/api-reference-page.test.ts skipped: ${skipReason}`);

const screenshot = new URL('../../build/api-reference-page.png', import.meta.url).pathname;
const bundled = JSON.parse(
  readFileSync(new URL('../../generated/openapi/service.bundled.json', import.meta.url), 'utf8'),
);
const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** Every operation of the contract: its sidebar id as Redoc makes it (`tag/<tag>/operation/<operationId>`). */
const operations = Object.values(bundled.paths as Record<string, Record<string, Record<string, unknown>>>).flatMap(
  (item) =>
    methods
      .map((m) => item[m] as { operationId: string; summary: string; tags: string[] } | undefined)
      .filter((op) => op !== undefined)
      .map((op) => ({ ...op, itemId: `tag/${op.tags[0]}/operation/${op.operationId}` })),
);
const create = operations.find((o) => o.operationId === 'createCustomLaunchV4');
const createBody = bundled.paths['/v4/chains/{chainId}/custom-launches'].post.requestBody.content['application/json'];
/** The create request's schema: its profiles, each listing launchIntentHash. */
const schemaOf = (ref: string) => bundled.components.schemas[ref.split('/').at(-1) ?? ''];
const createProfiles = schemaOf(createBody.schema.$ref).oneOf.map((variant: { $ref: string }) =>
  schemaOf(variant.$ref),
);
/** The example Redoc shows first (the bundle's first one) and a value of it no schema states. */
const shownExample = (
  Object.values(createBody.examples)[0] as { value: { launchWallet: string; chainDeployment: Record<string, string> } }
).value;

/** What the page did: every request URL, failed requests, console errors and uncaught errors, CSP violations. */
interface PageLog {
  requests: string[];
  failed: string[];
  errors: string[];
}

function watch(page: Page): PageLog {
  const log: PageLog = { requests: [], failed: [], errors: [] };
  page.on('request', (r) => log.requests.push(r.url()));
  page.on('requestfailed', (r) => log.failed.push(`${r.url()}: ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) log.failed.push(`${r.url()}: ${r.status()}`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error') log.errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => log.errors.push(`page error: ${e.message}`));
  return log;
}

let dir = '';
let server: ServerProcess | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (skipReason) return;
  dir = mkdtempSync(join(tmpdir(), 'api-reference-page-'));
  [server, browser] = await Promise.all([
    startServerProcess({ DATABASE_PATH: join(dir, 'api.sqlite') }),
    chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] }),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skipReason !== undefined)('the API reference page in headless Chromium', () => {
  it('renders every operation and the V4 create with its request schema and example, from this origin alone, without an error', async () => {
    const url = server?.url ?? '';
    const page = (await browser?.newPage({ viewport: { width: 1440, height: 900 } })) as Page;
    const log = watch(page);
    // Registered before any script of the page runs; an extension of the browser, not subject to the page's CSP.
    await page.addInitScript(() => {
      type Violation = { violatedDirective: string; blockedURI: string };
      const win = globalThis as unknown as { cspViolations: string[]; document: EventTarget };
      win.cspViolations = [];
      win.document.addEventListener('securitypolicyviolation', (e) => {
        const { violatedDirective, blockedURI } = e as unknown as Violation;
        win.cspViolations.push(`${violatedDirective} ${blockedURI}`);
      });
    });
    const response = await page.goto(`${url}/docs`);
    expect(response?.status()).toBe(200);

    // The sidebar: one item per operation of the contract, named by its summary (collapsed tags hold theirs).
    const sidebar = page.locator('.menu-content');
    await sidebar.locator(`li[data-item-id="${create?.itemId}"]`).waitFor({ state: 'attached', timeout: 90_000 });
    for (const op of operations) {
      const item = sidebar.locator(`li[data-item-id="${op.itemId}"]`);
      expect(await item.getAttribute('aria-label'), op.operationId).toBe(op.summary);
    }

    // To the V4 create as a reader gets there: open its tag, click its summary.
    await sidebar.locator('li[data-item-id="tag/launches-v4"] > label').click();
    await sidebar.getByRole('menuitem', { name: create?.summary }).click();
    await page.waitForURL(`**/docs#${create?.itemId}`);
    const section = page.locator(`[data-section-id="${create?.itemId}"]`);
    for (const profile of createProfiles) expect(profile.required).toContain('launchIntentHash');
    await section.locator('.property-name', { hasText: /^launchIntentHash$/ }).waitFor();
    const requestSamples = section
      .locator('div:has(> h3)')
      .filter({ has: page.locator('h3', { hasText: /^\s*Request samples\s*$/ }) });
    const sample = requestSamples.locator('.redoc-json');
    for (const value of [shownExample.chainDeployment.chainDeploymentId, shownExample.launchWallet]) {
      // Visible, as a JSON string of the sample (a locator waits for its element to be visible).
      await sample.getByText(`"${value}"`, { exact: true }).first().waitFor();
    }

    mkdirSync(new URL('../../build/', import.meta.url).pathname, { recursive: true });
    await page.screenshot({ path: screenshot });

    const origin = new URL(url).origin;
    const elsewhere = log.requests.filter((r) => !r.startsWith(`${origin}/`) && !/^(data|blob):/.test(r));
    expect(elsewhere).toEqual([]);
    expect(log.requests).toEqual(
      expect.arrayContaining([`${origin}/docs`, `${origin}/docs/redoc.standalone.js`, `${origin}/openapi.json`]),
    );
    expect(log.failed).toEqual([]);
    expect(log.errors).toEqual([]);
    expect(await page.evaluate(() => (globalThis as { cspViolations?: string[] }).cspViolations)).toEqual([]);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'self'");
  }, 180_000);
});
