import { DropReports } from './drop-reports';

describe('DropReports', () => {
  let now = 0;
  const lines: string[] = [];
  const reports = () => new DropReports({ warn: (line: string) => lines.push(line), log: () => undefined, error: () => undefined }, () => now);
  beforeEach(() => (lines.length = 0));

  it('logs what was dropped with a short, escaped excerpt and the size of a long message', () => {
    const drops = reports();
    drops.report('Dropped a message on svc:c: not JSON', Buffer.from('not json'));
    drops.report('Dropped a message on svc:c: bad signature', Buffer.concat([Buffer.from([0, 1, 0x1b]), Buffer.alloc(1_000_000, 'x')]));
    expect(lines[0]).toBe('Dropped a message on svc:c: not JSON; starts "not json"');
    expect(lines[1]).toMatch(/^Dropped a message on svc:c: bad signature; starts "\\u0000\\u0001\\u001bx{117}"… \(1000003 bytes\)$/);
  });

  it('writes at most 20 lines a minute, then says how many went without a line', () => {
    const drops = reports();
    for (let i = 0; i < 1000; i++) drops.report(`drop ${i}`, Buffer.from('x'));
    expect(lines).toHaveLength(20);
    now += 60_000;
    drops.report('drop after a minute', Buffer.from('x'));
    expect(lines[20]).toBe('drop after a minute; starts "x" (and 980 more dropped without a line)');
  });
});
