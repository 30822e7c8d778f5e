/**
 * Replaces anything shaped like an API key in `text` (an error message that echoed a header, say) so it can be
 * logged: a key never reaches a log, even by accident. Keys are `clk_` and 43 base64url characters
 * (src/auth/keys.ts); any such run of at least 8 is replaced.
 */
export function redactKeys(text: string): string {
  return text.includes('clk_') ? text.replace(/clk_[A-Za-z0-9_-]{8,}/g, 'clk_[redacted]') : text;
}
