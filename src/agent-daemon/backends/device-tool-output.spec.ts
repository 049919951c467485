import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAdbDevices, parseUiAutomatorDump, parseWmSize } from './adb-output';
import { parseSimctlDevices } from './simctl-backend';

/** Outputs in the exact format the tools print (see test/fixtures/agent-daemon). */
const fixture = (name: string) => readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'agent-daemon', name), 'utf8');

describe('adb output', () => {
  it('parses `adb devices -l`, skipping daemon notices, with state and model', () => {
    expect(parseAdbDevices(fixture('adb-devices-l.txt'))).toEqual([
      { serial: 'emulator-5554', state: 'device', model: 'sdk_gphone64_x86_64', product: 'sdk_gphone64_x86_64' },
      { serial: 'R5CR30ABCDE', state: 'device', model: 'SM_S918B', product: 'dm3qxxx' },
      { serial: '192.168.1.23:5555', state: 'offline', model: null, product: null },
      { serial: 'emulator-5556', state: 'unauthorized', model: null, product: null },
    ]);
    expect(parseAdbDevices('List of devices attached\n\n')).toEqual([]);
  });

  it('reads the screen size from `wm size`, preferring an override', () => {
    expect(parseWmSize('Physical size: 1080x2400\n')).toEqual({ width: 1080, height: 2400 });
    expect(parseWmSize('Physical size: 1440x3120\nOverride size: 1080x2340\n')).toEqual({ width: 1080, height: 2340 });
    expect(parseWmSize('error: no devices')).toBeNull();
  });

  it('maps a uiautomator dump to UI elements with frames as fractions of the screen', () => {
    const elements = parseUiAutomatorDump(fixture('uiautomator-dump.txt'), { width: 1080, height: 2400 });
    expect(elements).toHaveLength(6);
    expect(elements[0]).toEqual({ role: 'framelayout', label: '', identifier: '', frame: { x: 0, y: 0, width: 1, height: 1 }, enabled: true });
    expect(elements[1].role).toBe('scrollview');
    expect(elements[2]).toEqual({
      role: 'text',
      label: 'Settings',
      identifier: 'com.android.settings:id/homepage_title',
      frame: { x: 0.0583, y: 0.1179, width: 0.8833, height: 0.07 },
      enabled: true,
    });
    expect(elements[3]).toMatchObject({ role: 'button', label: 'Search settings', identifier: 'com.android.settings:id/search_action_bar' });
    expect(elements[4].label).toBe('Network & internet');
    expect(elements[5]).toMatchObject({ label: 'Storage', enabled: false });
    for (const e of elements) {
      for (const v of Object.values(e.frame)) expect(v >= 0 && v <= 1).toBe(true);
    }
  });

  it('falls back to the extent of the nodes when the screen size is unknown', () => {
    const elements = parseUiAutomatorDump(fixture('uiautomator-dump.txt'));
    expect(elements[0].frame).toEqual({ x: 0, y: 0, width: 1, height: 1 });
    expect(parseUiAutomatorDump('ERROR: could not get idle state.')).toEqual([]);
  });
});

describe('simctl output', () => {
  it('lists available simulators with their state and the runtime version', () => {
    expect(parseSimctlDevices(fixture('simctl-list-devices.json'))).toEqual([
      { sessionId: 'ios-7F3A2C1E-0B7D-4C55-9D0E-3B1A6E5F2A10', name: 'iPhone 16', platform: 'ios', state: 'booted', osVersion: '18.2' },
      {
        sessionId: 'ios-0C1D2E3F-4A5B-6C7D-8E9F-A0B1C2D3E4F5',
        name: 'iPad Air 11-inch (M2)',
        platform: 'ios',
        state: 'shutdown',
        osVersion: '18.2',
      },
    ]);
  });
});
