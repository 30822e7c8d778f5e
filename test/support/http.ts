/** Small HTTP helpers over real fetch. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** Sends one request and reads the whole reply. */
export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Reply> {
  const res = await fetch(url, { method: init.method ?? 'GET', headers: init.headers, body: init.body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Headers for an authenticated JSON call. */
export function auth(key: string, extra: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...extra };
}
