/** How commands print: one JSON document with --json, otherwise a table (or key/value lines) for people. */
export interface OutputOptions {
  json?: boolean;
}

export type Cell = string | number | boolean | null | undefined;

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

/** A list response: the relay's JSON with --json, else a table of its items and an optional footer line. */
export function printItems<T>(
  options: OutputOptions,
  page: { items: T[] },
  headers: string[],
  row: (item: T) => Cell[],
  footer = '',
): void {
  if (options.json) return printJson(page);
  process.stdout.write(formatTable(headers, page.items.map(row)) + footer);
}

/** A plain aligned table; nulls show as `-` so columns never collapse. */
export function formatTable(headers: string[], rows: Cell[][]): string {
  const text = rows.map((row) => row.map(cellText));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(headers), ...text.map(line)].join('\n') + '\n';
}

/**
 * `key: value` lines for one record (builds show, upload). A nested object's fields get lines of
 * their own (`provenance.commit`), a list is one line (`a; b`), and a value of several lines keeps
 * them, indented under its first.
 */
export function formatRecord(record: object): string {
  const lines = flatten(record, '');
  const width = Math.max(...lines.map(([k]) => k.length));
  return lines
    .map(([k, v]) => `${(k + ':').padEnd(width + 1)} ${v.replace(/\r?\n/g, `\n${' '.repeat(width + 2)}`)}`)
    .join('\n')
    .concat('\n');
}

function flatten(record: object, prefix: string): [string, string][] {
  return Object.entries(record).flatMap(([key, value]): [string, string][] => {
    if (isObject(value) && Object.keys(value).length) return flatten(value, `${prefix}${key}.`);
    return [[prefix + key, valueText(value)]];
  });
}

function valueText(value: unknown): string {
  if (Array.isArray(value)) return value.length ? value.map((item) => (typeof item === 'object' && item !== null ? JSON.stringify(item) : cellText(item as Cell))).join('; ') : '-';
  return isObject(value) ? '-' : cellText(value as Cell);
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function cellText(value: Cell): string {
  return value === null || value === undefined || value === '' ? '-' : String(value);
}

/** 1536 → "1.5 KB"; used by progress and download summaries. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
