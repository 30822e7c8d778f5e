import { describe, expect, it } from 'vitest';
import { inlineImageProtocol, inlineImageSequence } from '../../src/cli/inline-image.ts';

// The handoff shows the bound image itself only where a terminal names an inline-image protocol (project design,
// src/cli/inline-image.ts); everywhere else the image's digest and public URI.

describe('inlineImageProtocol', () => {
  it.each<[string, NodeJS.ProcessEnv, boolean, string, ReturnType<typeof inlineImageProtocol>]>([
    ['iTerm2', { TERM_PROGRAM: 'iTerm.app' }, true, 'image/png', 'iterm2'],
    ['iTerm2, a GIF', { TERM_PROGRAM: 'iTerm.app' }, true, 'image/gif', 'iterm2'],
    ['WezTerm', { TERM_PROGRAM: 'WezTerm' }, true, 'image/png', 'iterm2'],
    ['kitty by TERM', { TERM: 'xterm-kitty' }, true, 'image/png', 'kitty'],
    ['kitty by KITTY_WINDOW_ID', { TERM: 'xterm-256color', KITTY_WINDOW_ID: '1' }, true, 'image/png', 'kitty'],
    ['kitty, a GIF (its protocol takes PNG only)', { TERM: 'xterm-kitty' }, true, 'image/gif', null],
    ['iTerm2 but stdout is no terminal', { TERM_PROGRAM: 'iTerm.app' }, false, 'image/png', null],
    ['kitty but stdout is no terminal', { TERM: 'xterm-kitty' }, false, 'image/png', null],
    ['iTerm2 inside tmux', { TERM_PROGRAM: 'iTerm.app', TMUX: '/tmp/tmux-1/default,1,0' }, true, 'image/png', null],
    ['kitty inside screen', { TERM: 'xterm-kitty', STY: '1.pts-0.host' }, true, 'image/png', null],
    ['a screen TERM', { TERM: 'screen-256color', TERM_PROGRAM: 'iTerm.app' }, true, 'image/png', null],
    ['Apple Terminal', { TERM_PROGRAM: 'Apple_Terminal', TERM: 'xterm-256color' }, true, 'image/png', null],
    ['a plain xterm', { TERM: 'xterm-256color' }, true, 'image/png', null],
    ['no variables at all', {}, true, 'image/png', null],
  ])('%s', (_name, env, tty, mediaType, want) => {
    expect(inlineImageProtocol(env, tty, mediaType)).toBe(want);
  });
});

describe('inlineImageSequence', () => {
  it('iTerm2: one OSC 1337 with the byte size and the base64 bytes', () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    expect(inlineImageSequence('iterm2', bytes)).toBe(
      `\x1b]1337;File=inline=1;size=7;preserveAspectRatio=1:${bytes.toString('base64')}\x07\n`,
    );
  });

  it('kitty: chunks of at most 4096 base64 characters, m=1 on all but the last', () => {
    const bytes = Buffer.alloc(3 * 4096 + 3, 7); // 16388 base64 characters: four full chunks and one of 4
    const sequence = inlineImageSequence('kitty', bytes);
    const chunks = sequence
      .slice(0, -1)
      .split('\x1b\\')
      .filter((part) => part !== '')
      .map((part) => {
        expect(part.startsWith('\x1b_G')).toBe(true);
        return part.slice(3).split(';');
      });
    expect(chunks.map((c) => c[0])).toEqual(['a=T,f=100,m=1', 'm=1', 'm=1', 'm=1', 'm=0']);
    expect(chunks.map((c) => c[1]?.length)).toEqual([4096, 4096, 4096, 4096, 4]);
    expect(chunks.map((c) => c[1]).join('')).toBe(bytes.toString('base64'));
    const small = inlineImageSequence('kitty', Buffer.from('png'));
    expect(small).toBe(`\x1b_Ga=T,f=100,m=0;${Buffer.from('png').toString('base64')}\x1b\\\n`);
  });
});
