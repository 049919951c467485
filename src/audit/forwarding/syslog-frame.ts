import { hostname } from 'node:os';
import { isoWithMillis } from '../../common/time';
import type { AuditEntryResponse } from '../audit.mapper';

/** facility 13 (log audit) × 8 + severity 6 (informational), RFC 5424 §6.2.1. */
const PRI = 13 * 8 + 6;
/** The SD-ID of our structured data: a name@<private enterprise number>; 32473 is the documentation example number (RFC 5612). */
const SD_ID = 'svc@32473';

/**
 * One entry as an RFC 5424 message, framed by octet counting (RFC 6587 §3.4.1, the framing RFC 5425
 * requires over TLS): `<length> <message>`. The structured data carries what a SIEM filters on; the
 * message is the entry as the export writes it.
 */
export function syslogFrame(entry: AuditEntryResponse, host = hostname()): Buffer {
  const params = [
    ['id', String(entry.id)],
    ['action', entry.action],
    ['actor', entry.actor],
    ['via', entry.via],
    ['target', entry.target ?? ''],
    ['client', entry.client_address ?? ''],
    ['hash', entry.hash],
  ]
    .map(([name, value]) => `${name}="${escapeParam(value)}"`)
    .join(' ');
  const header = `<${PRI}>1 ${isoWithMillis(new Date(entry.at))} ${printable(host, 255)} svc-relay ${process.pid} audit`;
  const message = Buffer.from(`${header} [${SD_ID} ${params}] ${JSON.stringify(entry)}`, 'utf8');
  return Buffer.concat([Buffer.from(`${message.length} `, 'ascii'), message]);
}

/** RFC 5424 §6.3.3: `"`, `\` and `]` are escaped inside PARAM-VALUE. */
function escapeParam(value: string): string {
  return value.replace(/[\\"\]]/g, (c) => `\\${c}`);
}

/** HOSTNAME is PRINTUSASCII (33–126), at most 255; `-` when nothing is left. */
function printable(text: string, max: number): string {
  return text.replace(/[^\x21-\x7e]/g, '').slice(0, max) || '-';
}
