// The API reference site in a real browser: Debian's Chromium driven by playwright-core, against a
// real server process (/docs/ on its port, no token) and from file:// (out/docs as generated).
// Search `volumeHandle`, follow it to the PersistentVolume field, expand a tree, and check that
// no request left the page's own origin; a screenshot is saved under test-results/ and the page
// weight of a kind's page (HTML, CSS, JS, gzipped) is printed.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TestServer } from './harness.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const RESULTS = join(ROOT, 'test-results', 'docs-browser');
/** The brief's budget for one kind's page: HTML, CSS and JS, gzipped. */
const PAGE_WEIGHT_BUDGET = 150 * 1024;
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`SKIPPED test/e2e/docs-browser.test.ts: no Chromium at ${CHROMIUM} (Debian: apt-get install chromium; or set CHROMIUM_PATH)`);

/** Records every request of a context and every script error of its pages. */
function watch(context: BrowserContext): { requests: string[]; errors: string[]; track(page: Page): void } {
  const requests: string[] = [];
  const errors: string[] = [];
  context.on('request', (r) => requests.push(r.url()));
  return {
    requests,
    errors,
    track(page: Page) {
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
    },
  };
}

/** Search, follow the hit to the PersistentVolume field, expand a collapsed subtree, then expand all. */
async function searchFollowExpand(page: Page, screenshot?: string): Promise<void> {
  await page.fill('#q', 'volumeHandle');
  const hit = page.locator('#results a', { hasText: 'PersistentVolume spec.csi.volumeHandle' }).first();
  await hit.waitFor({ state: 'visible', timeout: 5_000 });
  if (screenshot) await page.screenshot({ path: screenshot });
  await hit.click();
  await page.waitForURL(/\/core\/persistentvolume_v1\.html#spec\.csi\.volumeHandle$/, { timeout: 5_000 });
  const field = page.locator('[id="spec.csi.volumeHandle"]');
  await field.waitFor({ state: 'visible', timeout: 5_000 });
  expect(await field.evaluate((el) => el.classList.contains('hit'))).toBe(true);
  expect(await field.locator('.b.req').textContent()).toBe('required');
  expect(await page.locator('[id="spec.csi.driver"]').isVisible()).toBe(true);

  const claimRef = page.locator('[id="spec.claimRef"] > details.kids');
  expect(await claimRef.evaluate((d) => d.hasAttribute('open'))).toBe(false);
  expect(await page.locator('[id="spec.claimRef.name"]').isVisible()).toBe(false);
  await claimRef.locator('> summary').click();
  await page.locator('[id="spec.claimRef.name"]').waitFor({ state: 'visible', timeout: 5_000 });

  await page.click('button[data-expand="open"]');
  expect(await page.locator('details.kids:not([open])').count()).toBe(0);
  expect(await page.locator('[id="spec.nodeAffinity.required.nodeSelectorTerms[*].matchExpressions[*].key"]').isVisible()).toBe(true);
  await page.click('button[data-expand="close"]');
  expect(await page.locator('details.kids[open]').count()).toBe(0);
}

describe.skipIf(!hasChromium)('API reference site in Chromium', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(RESULTS, { recursive: true });
    [server, browser] = await Promise.all([
      TestServer.start('memory'),
      // --no-sandbox: Chromium's sandbox refuses to run as root (CI and these machines run tests as root).
      chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] }),
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('serves /docs/ without a token, and refuses a bad one as /version does', async () => {
    const index = await server.get('/docs/', { token: null });
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.text).toContain('<h1>API reference</h1>');
    expect((await server.get('/docs', { token: null })).headers.location).toBe('/docs/');
    expect((await server.get('/docs/', { token: 'not-a-token' })).status).toBe(401);
    expect((await server.get('/docs/..%2fadmin.token', { token: null })).status).toBe(404);
    // The kind pages' JSON Schema links resolve to /jsonschema/ on the same port, open like /docs/.
    const schema = await server.get('/jsonschema/persistentvolume_v1.json', { token: null });
    expect(schema.status, 'the JSON Schema link target').toBe(200);
    expect(schema.json?.properties?.kind?.enum, 'the PersistentVolume schema').toEqual(['PersistentVolume']);
  });

  it('from the server: search volumeHandle, follow it to the field, expand; every request stays on the origin', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
    const seen = watch(context);
    const page = await context.newPage();
    seen.track(page);
    await page.goto(`${server.url}/docs/`);
    expect(await page.title()).toBe('API reference');
    await searchFollowExpand(page, join(RESULTS, 'index-search.png'));
    await page.goto(`${server.url}/docs/core/persistentvolume_v1.html#spec.csi.volumeHandle`);
    await page.locator('[id="spec.csi.volumeHandle"]').waitFor({ state: 'visible', timeout: 5_000 });
    await page.screenshot({ path: join(RESULTS, 'persistentvolume-volumeHandle.png') });

    // Lookup by apiVersion and kind, as the index's form submits it.
    await page.goto(`${server.url}/docs/index.html?apiVersion=storage.cluster.io%2Fv1&kind=CSIDriver`);
    await page.waitForURL(/\/storage\.cluster\.io\/csidriver_v1\.html$/, { timeout: 5_000 });
    await page.goto(`${server.url}/docs/index.html?apiVersion=v1&kind=Gadget`);
    await page.locator('#lookup-result', { hasText: 'No kind Gadget in v1' }).waitFor({ timeout: 5_000 });
    // A short name finds its kind first.
    await page.fill('#q', 'pvc');
    await page.locator('#results a').first().waitFor({ state: 'visible', timeout: 5_000 });
    expect(await page.locator('#results a').first().textContent()).toBe('PersistentVolumeClaim');
    await context.close();

    const origin = new URL(server.url).origin;
    expect(seen.requests.length).toBeGreaterThan(5);
    expect(seen.requests.filter((u) => new URL(u).origin !== origin)).toEqual([]);
    expect(seen.errors).toEqual([]);
  });

  it('from file://: the same steps work, and every request is a file of out/docs', async () => {
    const docs = join(ROOT, 'out', 'docs');
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const seen = watch(context);
    const page = await context.newPage();
    seen.track(page);
    await page.goto(pathToFileURL(join(docs, 'index.html')).href);
    await searchFollowExpand(page);
    await context.close();
    const base = pathToFileURL(docs).href + '/';
    expect(seen.requests.filter((u) => !u.startsWith(base))).toEqual([]);
    expect(seen.errors).toEqual([]);
  });

  it('weighs a kind page (HTML, CSS, JS, gzipped) under the budget', async () => {
    const weigh = async (path: string): Promise<number> => {
      const r = await server.get(`/docs/${path}`, { token: null });
      expect(r.status).toBe(200);
      return gzipSync(r.text).length;
    };
    const rows: string[] = [];
    let heaviest = 0;
    for (const page of ['core/persistentvolume_v1.html', 'storage.cluster.io/volumeattachment_v1.html', 'apiextensions.cluster.io/customresourcedefinition_v1.html', 'core/configmap_v1.html']) {
      const [html, css, js] = await Promise.all([weigh(page), weigh('docs.css'), weigh('docs.js')]);
      const total = html + css + js;
      heaviest = Math.max(heaviest, total);
      rows.push(`${page}: ${(total / 1024).toFixed(1)} KB (HTML ${(html / 1024).toFixed(1)}, CSS ${(css / 1024).toFixed(1)}, JS ${(js / 1024).toFixed(1)})`);
    }
    const index = await weigh('search-index.js');
    console.log(`docs page weight, gzipped (budget ${PAGE_WEIGHT_BUDGET / 1024} KB):\n  ${rows.join('\n  ')}\n  search-index.js, loaded on the first search: ${(index / 1024).toFixed(1)} KB`);
    expect(heaviest).toBeLessThan(PAGE_WEIGHT_BUDGET);
  });
});
