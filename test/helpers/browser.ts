/**
 * A real browser for page tests: Debian's Chromium driven by playwright-core (no browser download).
 * When Chromium is missing, page suites skip with a warning locally and fail in CI (`CI=true`), so
 * that a CI without it cannot pass silently. Each page is checked the same way: no console error or
 * CSP violation, no failed request, and axe-core (injected with `page.evaluate`, which the page's CSP
 * does not govern) finds no serious or critical accessibility violation. Full-page screenshots go to
 * `ADMIN_UI_SCREENSHOTS` (default: a folder under the OS temp dir) for people to look at.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);

/** `describe`, or — without Chromium — `describe.skip` locally and a failing suite in CI. */
export function describeInBrowser(name: string, body: () => void): void {
  if (hasChromium) return describe(name, body);
  if (process.env.CI === 'true') {
    describe(name, () => test(`needs Chromium at ${CHROMIUM}`, () => expect(`${CHROMIUM} exists`).toBe('apt-get install -y chromium')));
    return;
  }
  console.warn(`${name}: skipped, ${CHROMIUM} not found (apt-get install -y chromium)`);
  describe.skip(name, body);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--disable-gpu'] });
}

/** A laptop's window, or (`phone`) a phone's: 390 × 844 CSS pixels, touch, a mobile viewport. */
export function newContext(browser: Browser, device: 'laptop' | 'phone' = 'laptop'): Promise<BrowserContext> {
  return browser.newContext({
    ...(device === 'phone'
      ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }
      : { viewport: { width: 1280, height: 800 } }),
    deviceScaleFactor: 1,
    locale: 'en-US',
    timezoneId: 'UTC',
    acceptDownloads: true,
  });
}

/** Console errors, page errors and failed requests of a page, as they happen. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => {
    // A download is "aborted" as a navigation; it is not a failure of the page.
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`);
  });
  return problems;
}

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/** axe-core's serious and critical violations on the page, as `rule: target` lines. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async (tags) => {
    const axe = (
      globalThis as unknown as {
        axe: { run(ctx: unknown, o: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { runOnly: tags });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) }));
  }, AXE_TAGS);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.targets.join(', ')}`);
}

export const SCREENSHOTS = process.env.ADMIN_UI_SCREENSHOTS ?? path.join(os.tmpdir(), 'admin-ui-screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
