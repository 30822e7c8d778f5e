const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Checks the origin rule of the client's authenticated traffic: https,
 * or http on localhost, 127.0.0.1 or [::1]; an origin only, without credentials, path, query or fragment. Returns
 * the normalized origin; throws a TypeError that says what to fix.
 */
export function checkOrigin(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(
      `the origin must be an absolute URL such as https://api.example or http://127.0.0.1:8787, got "${baseUrl}"`,
    );
  }
  const allowed = url.protocol === 'https:' || (url.protocol === 'http:' && loopbackHosts.has(url.hostname));
  if (!allowed) {
    throw new TypeError(
      `the origin must be https, or http on localhost, 127.0.0.1 or [::1]; got ${url.protocol}//${url.hostname}`,
    );
  }
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new TypeError('the origin must be an origin only: no credentials, path, query or fragment');
  }
  return url.origin;
}
