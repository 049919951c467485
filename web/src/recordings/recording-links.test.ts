import { describe, expect, it } from 'vitest';
import { recordingParts, recordingPaths, recordingReference } from './recording-links';

const FILE = `rec-${'ab12'.repeat(8)}.mp4`;
const PATH = `/api/v1/recordings/${FILE}`;
const ORIGIN = 'https://relay.example.com';

describe('recordingPaths', () => {
  it('finds the recordings a comment names, by path or on this origin, each once', () => {
    expect(recordingPaths(`Rejected: crash on login.\n${recordingReference(PATH)}`, ORIGIN)).toEqual([PATH]);
    expect(recordingPaths(`${ORIGIN}${PATH} and again ${PATH}`, ORIGIN)).toEqual([PATH]);
  });

  it('ignores another site, other names and the upload route', () => {
    expect(recordingPaths(`https://evil.example${PATH}`, ORIGIN)).toEqual([]);
    expect(recordingPaths('/api/v1/recordings/rec-1234.mp4 /api/v1/recordings/upload', ORIGIN)).toEqual([]);
    expect(recordingPaths(`/api/v1/recordings/rec-${'A'.repeat(32)}.mp4`, ORIGIN)).toEqual([]);
  });
});

describe('recordingParts', () => {
  it('splits text around the recording paths', () => {
    expect(recordingParts(`See ${PATH}.`, ORIGIN)).toEqual([{ text: 'See ' }, { path: PATH, shown: PATH }, { text: '.' }]);
    expect(recordingParts('nothing here', ORIGIN)).toEqual([{ text: 'nothing here' }]);
  });
});
