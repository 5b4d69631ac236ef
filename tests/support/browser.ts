/** Headless Chromium (Debian's package) driven by playwright-core, for page tests. */

// A test-only tool: imported by full specifier, not through deno.json, so it is pinned in
// deno.test.lock and never enters deno.lock, which holds only what the server itself runs.
// deno-lint-ignore no-import-prefix
import { type Browser, chromium } from "npm:playwright-core@1.65.1";
export type { Browser, Page } from "npm:playwright-core@1.65.1";

/** Where Debian installs Chromium. */
export const CHROMIUM = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";

function chromiumInstalled(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}

/**
 * Registers a test that needs Chromium. Without Chromium it is skipped, unless
 * `REQUIRE_BROWSER=1` (set by `.ci/run`), where a missing browser is a failure.
 */
export function browserTest(name: string, fn: (browser: Browser) => Promise<void>): void {
  const required = Deno.env.get("REQUIRE_BROWSER") === "1";
  Deno.test({
    name,
    ignore: !required && !chromiumInstalled(),
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
        ],
      });
      try {
        await fn(browser);
      } finally {
        await browser.close();
      }
    },
  });
}

/**
 * Where a test saves a screenshot: `tests/screenshots/<name>.png` when `UPDATE_SCREENSHOTS=1`
 * (the committed pictures people look at), otherwise a temporary file, so an ordinary test run
 * still renders the picture but leaves the work tree clean.
 */
export async function screenshotPath(name: string): Promise<string> {
  if (Deno.env.get("UPDATE_SCREENSHOTS") === "1") {
    const dir = new URL("../screenshots/", import.meta.url);
    await Deno.mkdir(dir, { recursive: true });
    return new URL(`${name}.png`, dir).pathname;
  }
  return await Deno.makeTempFile({ prefix: `${name}-`, suffix: ".png" });
}
