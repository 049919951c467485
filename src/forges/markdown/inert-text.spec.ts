import { inertBlock, inlineText, neutraliseMentions } from './inert-text';

const Z = '\u200B';

describe('neutraliseMentions', () => {
  it('puts a zero-width space after every @, once', () => {
    expect(neutraliseMentions('@org/team and @here, mail a@b.example')).toBe(`@${Z}org/team and @${Z}here, mail a@${Z}b.example`);
    expect(neutraliseMentions(neutraliseMentions('@x'))).toBe(`@${Z}x`);
  });
});

describe('inlineText', () => {
  it('escapes what would make a link, an image, emphasis, a tag or a new cell, on one line, mentions broken', () => {
    expect(inlineText('Pay @acme [x](http://x.invalid) ![i](http://x.invalid/p.png) <b>|*_`\nv2')).toBe(
      `Pay @${Z}acme \\[x\\](http://x.invalid) !\\[i\\](http://x.invalid/p.png) \\<b\\>\\|\\*\\_\\\` v2`,
    );
  });
});

describe('inlineText and entities', () => {
  it('escapes & so an entity cannot spell a mention or a tag once the forge decodes it', () => {
    expect(inlineText('&#64;org/team &commat;here &lt;img&gt;')).toBe('&amp;#64;org/team &amp;commat;here &amp;lt;img&amp;gt;');
  });
});

describe('inertBlock', () => {
  it('fences the text, mentions broken, line endings made \\n', () => {
    expect(inertBlock('@org/team approve now [click](http://x.invalid)\r\n<img src=x>')).toBe(
      `\`\`\`\n@${Z}org/team approve now [click](http://x.invalid)\n<img src=x>\n\`\`\``,
    );
  });

  it('uses a fence longer than any backtick run inside, so the text cannot close it', () => {
    expect(inertBlock('a\n```\n[x](y)\n`````')).toBe('``````\na\n```\n[x](y)\n`````\n``````');
  });
});
