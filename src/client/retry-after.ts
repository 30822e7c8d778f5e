/**
 * Reads a `Retry-After` header (launch-transport.md Endpoints: "seconds or an HTTP date") as milliseconds to wait
 * from `now`. Undefined when the header is absent or unreadable; a date in the past is 0.
 */
export function retryAfterMs(header: string | null | undefined, now: number): number | undefined {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  if (/^[0-9]+$/.test(value)) return Number(value) * 1000;
  // An HTTP date (IMF-fixdate, RFC 9110 5.6.7) names its weekday; a bare number or other text is not a date.
  if (!/^[A-Za-z]{3}, /.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
