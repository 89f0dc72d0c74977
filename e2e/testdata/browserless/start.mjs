// Starts the pinned Browserless with Chromium only: Debian's
// /usr/bin/chromium, reached through PLAYWRIGHT_BROWSERS_PATH (the test
// links playwright's expected chromium path to it). Browserless refuses to
// start while a route names a browser it cannot find, so the routes of
// Chrome, Edge, Firefox and WebKit (not installed here) are turned off.
// HOST, PORT, TOKEN, TIMEOUT and CONCURRENT are Browserless's own
// environment settings.
import { Browserless, BrowserlessRoutes } from '@browserless.io/browserless';

const browserless = new Browserless();
browserless.disableRoutes(
  ...Object.values(BrowserlessRoutes).filter((name) => /^(Chrome|Edge|Firefox|WebKit)[A-Z]/.test(name)),
);
await browserless.start();

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, async () => {
    await browserless.stop();
    process.exit(0);
  });
}
