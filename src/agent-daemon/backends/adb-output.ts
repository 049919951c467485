import type { UiElement } from '../../agents/protocol/ui-tree';

/** One line of `adb devices -l`. */
export interface AdbDevice {
  serial: string;
  /** `device` when usable; `offline`, `unauthorized`, `recovery`, … otherwise. */
  state: string;
  model: string | null;
  product: string | null;
}

/** Parses `adb devices -l` (skipping the banner, daemon start-up notices and blank lines). */
export function parseAdbDevices(output: string): AdbDevice[] {
  const devices: AdbDevice[] = [];
  for (const line of output.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('List of devices') || trimmed.startsWith('*')) continue;
    const [serial, state, ...rest] = trimmed.split(/\s+/);
    if (!serial || !state) continue;
    const props = Object.fromEntries(
      rest.filter((p) => p.includes(':')).map((p) => [p.slice(0, p.indexOf(':')), p.slice(p.indexOf(':') + 1)]),
    );
    devices.push({ serial, state, model: props.model ?? null, product: props.product ?? null });
  }
  return devices;
}

/** `Physical size: 1080x2400` (an `Override size:` line wins, as it is what the screen shows). */
export function parseWmSize(output: string): { width: number; height: number } | null {
  const override = /Override size:\s*(\d+)x(\d+)/.exec(output);
  const physical = /Physical size:\s*(\d+)x(\d+)/.exec(output);
  const match = override ?? physical;
  return match ? { width: Number(match[1]), height: Number(match[2]) } : null;
}

const ROLE_BY_CLASS: Record<string, string> = {
  Button: 'button',
  ImageButton: 'button',
  TextView: 'text',
  EditText: 'textfield',
  ImageView: 'image',
  CheckBox: 'checkbox',
  Switch: 'switch',
  RadioButton: 'radio',
  ScrollView: 'scrollview',
  RecyclerView: 'list',
  ListView: 'list',
  WebView: 'webview',
};

/**
 * Maps a `uiautomator dump` to UI elements (spec §2): every node, in document order, with its frame
 * as fractions of the screen. The screen is the given size, else the extent of the root nodes.
 * Text after the XML (`UI hierchary dumped to: …`) is ignored.
 */
export function parseUiAutomatorDump(xml: string, screen?: { width: number; height: number } | null): UiElement[] {
  const nodes = [...xml.matchAll(/<node\b([^>]*?)\/?>/g)].map((m) => attributes(m[1]));
  const bounds = nodes.map((n) => parseBounds(n.bounds ?? ''));
  const width = screen?.width ?? Math.max(1, ...bounds.map((b) => b?.right ?? 0));
  const height = screen?.height ?? Math.max(1, ...bounds.map((b) => b?.bottom ?? 0));
  return nodes.map((node, i) => {
    const b = bounds[i] ?? { left: 0, top: 0, right: 0, bottom: 0 };
    const className = node.class ?? '';
    const simpleName = className.slice(className.lastIndexOf('.') + 1);
    return {
      role: ROLE_BY_CLASS[simpleName] ?? (simpleName.toLowerCase() || 'view'),
      label: node.text || node['content-desc'] || '',
      identifier: node['resource-id'] ?? '',
      frame: {
        x: fraction(b.left, width),
        y: fraction(b.top, height),
        width: fraction(b.right - b.left, width),
        height: fraction(b.bottom - b.top, height),
      },
      enabled: node.enabled !== 'false',
    };
  });
}

function attributes(source: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const m of source.matchAll(/([\w:-]+)="([^"]*)"/g)) result[m[1]] = decodeXml(m[2]);
  return result;
}

function parseBounds(value: string): { left: number; top: number; right: number; bottom: number } | null {
  const m = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/.exec(value);
  return m ? { left: +m[1], top: +m[2], right: +m[3], bottom: +m[4] } : null;
}

function fraction(value: number, total: number): number {
  return Math.min(Math.max(Math.round((value / total) * 10000) / 10000, 0), 1);
}

function decodeXml(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, entity: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (named[entity.toLowerCase()]) return named[entity.toLowerCase()];
    const code = entity[1].toLowerCase() === 'x' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
}
