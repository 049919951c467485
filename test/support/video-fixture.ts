import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AccessUnitSplitter } from '../../src/agents/protocol/annex-b';

/** Access units of a real libx264 stream (100×60, an AUD per picture, key frames at 0 and 5), as an agent sends them. */
export function fixtureAccessUnits(): Buffer[] {
  const units: Buffer[] = [];
  const splitter = new AccessUnitSplitter((unit) => units.push(unit), 1 << 20);
  splitter.push(readFileSync(join(__dirname, '../fixtures/video/aud.h264')));
  splitter.end();
  return units;
}
