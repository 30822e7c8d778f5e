/**
 * Inline images in a terminal, decided conservatively (project design): only on a terminal (stdout a TTY), never
 * inside tmux or screen (they need passthrough wrapping), and only for terminals that name themselves: iTerm2 and
 * WezTerm (TERM_PROGRAM, the iTerm2 inline-image escape: PNG and GIF) and kitty (TERM=xterm-kitty or KITTY_WINDOW_ID,
 * the kitty graphics escape: PNG only). Everywhere else the caller prints the image's digest and public URI.
 */
export type InlineImageProtocol = 'iterm2' | 'kitty';

/** The inline-image protocol of this terminal for an image of `mediaType`, or null to print no image. */
export function inlineImageProtocol(
  env: NodeJS.ProcessEnv,
  stdoutIsTTY: boolean,
  mediaType: string,
): InlineImageProtocol | null {
  if (!stdoutIsTTY) return null;
  if (env.TMUX || env.STY || env.TERM?.startsWith('screen') || env.TERM?.startsWith('tmux')) return null;
  if (env.TERM_PROGRAM === 'iTerm.app' || env.TERM_PROGRAM === 'WezTerm') return 'iterm2';
  if ((env.TERM === 'xterm-kitty' || env.KITTY_WINDOW_ID) && mediaType === 'image/png') return 'kitty';
  return null;
}

/** The escape sequence that shows `bytes` inline with `protocol`, ending on a newline. */
export function inlineImageSequence(protocol: InlineImageProtocol, bytes: Buffer): string {
  const base64 = bytes.toString('base64');
  if (protocol === 'iterm2') {
    return `\x1b]1337;File=inline=1;size=${bytes.length};preserveAspectRatio=1:${base64}\x07\n`;
  }
  // The kitty graphics protocol takes the payload in chunks of at most 4096 base64 characters; m=1 means more follow.
  const chunks: string[] = [];
  for (let i = 0; i < base64.length; i += 4096) {
    const more = i + 4096 < base64.length ? 1 : 0;
    const head = i === 0 ? `a=T,f=100,m=${more}` : `m=${more}`;
    chunks.push(`\x1b_G${head};${base64.slice(i, i + 4096)}\x1b\\`);
  }
  return `${chunks.join('')}\n`;
}
