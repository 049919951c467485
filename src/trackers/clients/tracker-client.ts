import type { ForgeHttp } from '../../forges/clients/forge-client';

/** What an issue says when it is filed: the reporter's words and the build's facts, already composed. */
export interface IssueRequest {
  project: string;
  title: string;
  /** Plain text paragraphs (each client renders them its own way: ADF, wiki text, Markdown). */
  paragraphs: string[];
  issueType: string;
}

/** The issue as the tracker created it. */
export interface CreatedIssue {
  /** Jira key (`MOB-12`), Linear id, GitHub `owner/name#12`: what its webhooks name it by. */
  externalId: string;
  url: string;
  status: string | null;
}

/** One file of evidence on disk (a clip, a screenshot, the UI tree). */
export interface EvidenceFile {
  name: string;
  contentType: string;
  path: string;
  size: number;
}

/**
 * One kind of tracker. Throws ForgeRefusal (refusalOf) for a non-2xx answer, so the forge outbox's
 * retry policy judges trackers' answers like forges'; anything else is a network error.
 */
export interface TrackerClient {
  createIssue(issue: IssueRequest): Promise<CreatedIssue>;
  /** Attaches the files to the created issue; a tracker that takes no files (GitHub) lists them in a comment instead. */
  attach(issue: CreatedIssue, files: EvidenceFile[], note: string): Promise<void>;
}

export type TrackerHttp = ForgeHttp;

/** Bytes as fetch's BodyInit takes them, without a copy. */
export function bodyOf(bytes: Buffer): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.length);
}

/** A multipart/form-data body of one file field, built by hand: the pinned fetch sends bytes and the headers it is given. */
export function multipartFile(field: string, file: { name: string; contentType: string }, bytes: Buffer): { body: Buffer; contentType: string } {
  const boundary = `svc-${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`;
  const safeName = file.name.replace(/["\r\n\\]/g, '_');
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${safeName}"\r\nContent-Type: ${file.contentType}\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, bytes, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}
