import type { IncomingMessage } from 'node:http';
import { hasRequestBody } from './request-deadline';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('hasRequestBody', () => {
  it('is false only when neither a Transfer-Encoding nor a numeric Content-Length announces one', () => {
    expect(hasRequestBody(request({}))).toBe(false);
    expect(hasRequestBody(request({ 'content-type': 'application/json' }))).toBe(false);
    expect(hasRequestBody(request({ 'content-length': 'abc' }))).toBe(false);
    expect(hasRequestBody(request({ 'content-length': '0' }))).toBe(true);
    expect(hasRequestBody(request({ 'content-length': '12' }))).toBe(true);
    expect(hasRequestBody(request({ 'transfer-encoding': 'chunked' }))).toBe(true);
  });
});
