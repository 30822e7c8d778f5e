/**
 * Reads a `Retry-After` header (seconds or an HTTP date) as milliseconds to wait
 * from `now`. Undefined when the header is absent or unreadable; a date in the past is 0.
 */
export function retryAfterMs(header: string | null | undefined, now: number): number | undefined {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  if (/^[0-9]+$/.test(value)) return Number(value) * 1000;
  const at = httpDate(value);
  if (at === undefined) return undefined;
  return Math.max(0, at - now);
}

const day = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const month = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const time = '[0-9]{2}:[0-9]{2}:[0-9]{2}';
/** The three HTTP-date forms a recipient must accept (RFC 9110 5.6.7): IMF-fixdate, RFC 850 and asctime. */
const imfFixdate = new RegExp(`^${day}, [0-9]{2} ${month} [0-9]{4} ${time} GMT$`);
const rfc850 = new RegExp(`^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, [0-9]{2}-${month}-[0-9]{2} ${time} GMT$`);
const asctime = new RegExp(`^${day} (${month}) ([ 0-9][0-9]) (${time}) ([0-9]{4})$`);

/** Milliseconds since the epoch of an HTTP date, or undefined when the text is not one of its three forms. */
function httpDate(value: string): number | undefined {
  let at: number;
  if (imfFixdate.test(value) || rfc850.test(value)) at = Date.parse(value);
  else {
    const m = asctime.exec(value);
    if (!m) return undefined;
    // asctime carries no zone; HTTP dates are always GMT.
    at = Date.parse(`${m[2]?.trim()} ${m[1]} ${m[4]} ${m[3]} GMT`);
  }
  return Number.isNaN(at) ? undefined : at;
}
