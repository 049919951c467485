import type { Request } from 'express';
import { readFile } from 'node:fs/promises';
import { badRequest, HttpError, payloadTooLarge } from '../../common/errors/http-error';
import { receiveMultipart, refuseRest } from '../../common/multipart/multipart-receiver';
import { MAX_REPORT_BYTES } from './junit-report';

const TOO_LARGE = `JUnit report too large (limit ${MAX_REPORT_BYTES} bytes)`;
const XML_TYPES = ['application/xml', 'text/xml', 'application/junit+xml'];

/** What CI sent: the report's text and the run name it gave (multipart field or `?name=`), if any. */
export interface ReceivedReport {
  xml: string;
  name: string | null;
}

/**
 * Takes a JUnit report the ways CI tools send one: the XML as the body (`curl --data-binary
 * @report.xml -H 'Content-Type: application/xml'`), or multipart with the file in `file` and an
 * optional `name` field (`curl -F file=@report.xml`, `svc results upload`). The size limit applies
 * while bytes arrive; a multipart temp file is removed on every path.
 */
export async function receiveJUnitReport(req: Request, tmpDir: string): Promise<ReceivedReport> {
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const queryName = typeof req.query.name === 'string' ? req.query.name : null;
  if (XML_TYPES.includes(type)) return { xml: await readBody(req), name: queryName };
  if (type !== 'multipart/form-data') {
    throw badRequest('Send the JUnit report as the body (Content-Type: application/xml) or as multipart/form-data with the file in `file`');
  }
  const body = await receiveMultipart(req, { tmpDir, files: { file: { maxBytes: MAX_REPORT_BYTES, tooLargeMessage: TOO_LARGE } }, maxFields: 4, maxFieldBytes: 1000 });
  try {
    const file = body.file('file');
    if (!file || file.size === 0) throw badRequest('The JUnit report is missing: send it in the multipart field `file`');
    return { xml: await readFile(file.path, 'utf8'), name: body.fields.name ?? queryName };
  } finally {
    await body.cleanup();
  }
}

function readBody(req: Request): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_REPORT_BYTES) {
    refuseRest(req);
    return Promise.reject(payloadTooLarge(TOO_LARGE));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const fail = (err: HttpError | Error) => {
      if (done) return;
      done = true;
      req.pause();
      refuseRest(req);
      reject(err);
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > MAX_REPORT_BYTES) return fail(payloadTooLarge(TOO_LARGE));
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      if (!size) return reject(badRequest('The JUnit report is missing: the body is empty'));
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', fail);
  });
}
