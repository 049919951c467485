import type { Element } from '@xmldom/xmldom';
import type { TestCaseStatus } from './test-run.entities';

/** The largest JUnit report taken (bytes): beyond it, 413 while the bytes arrive. */
export const MAX_REPORT_BYTES = 5 * 1024 * 1024;
/** Test cases of one report at most (a report beyond it is refused, not cut). */
export const MAX_TEST_CASES = 10_000;
const MAX_NAME = 500;
const MAX_MESSAGE = 4000;
/** The property (or `svc:session=<id>` in system-out) that names a test's hub session; WebdriverIO's `sessionId` is read too. */
const SESSION_PROPERTIES = ['svc:session', 'sessionId'];
const SESSION_IN_OUTPUT = /svc:session=([A-Za-z0-9._:-]{1,200})/;

export interface ReportedTestCase {
  name: string;
  className: string | null;
  status: TestCaseStatus;
  durationMs: number | null;
  message: string | null;
  sessionId: string | null;
}

export interface JUnitReport {
  /** The root `<testsuites name>` (or `<testsuite name>`), if any. */
  name: string | null;
  cases: ReportedTestCase[];
}

/** Why a report was refused: the sentence the 400 carries. */
export class JUnitReportError extends Error {}

/**
 * Reads a JUnit XML report (the de-facto schema of Ant/Surefire that WebdriverIO, pytest, Gradle
 * and JUnit 5 write): every `<testcase>` under `<testsuites>` or a lone `<testsuite>`, its
 * `<failure>`/`<error>` (failed) or `<skipped>`, its `time` in seconds. A DOCTYPE is refused (no
 * entity expansion to bound), as is anything not well-formed.
 */
export function readJUnitReport(xml: string): JUnitReport {
  if (/<!DOCTYPE/i.test(xml)) throw new JUnitReportError('The JUnit report has a DOCTYPE, which is not accepted');
  let problem: string | null = null;
  // Loaded on the first report, not at start-up (docs/decisions.md#s1).
  const { DOMParser } = require('@xmldom/xmldom') as typeof import('@xmldom/xmldom');
  const parser = new DOMParser({
    onError: (level, message) => {
      if (level === 'warning') return;
      problem ??= String(message).split('\n')[0].trim();
      throw new JUnitReportError(problem);
    },
  });
  let root: Element | null;
  try {
    root = parser.parseFromString(xml, 'text/xml').documentElement;
  } catch {
    throw new JUnitReportError(`The JUnit report is not well-formed XML: ${problem ?? 'it could not be read'}`);
  }
  if (problem || !root) throw new JUnitReportError(`The JUnit report is not well-formed XML: ${problem ?? 'no root element'}`);
  if (root.localName !== 'testsuites' && root.localName !== 'testsuite') {
    throw new JUnitReportError(`The JUnit report's root element is <${root.localName}>; expected <testsuites> or <testsuite>`);
  }
  const elements = Array.from(root.getElementsByTagName('testcase'));
  if (elements.length > MAX_TEST_CASES) throw new JUnitReportError(`The JUnit report has ${elements.length} test cases; at most ${MAX_TEST_CASES} are taken`);
  return { name: clip(root.getAttribute('name'), 200), cases: elements.map(readCase) };
}

function readCase(element: Element): ReportedTestCase {
  const failure = firstChild(element, 'failure') ?? firstChild(element, 'error');
  const skipped = firstChild(element, 'skipped');
  const status: TestCaseStatus = failure ? 'failed' : skipped ? 'skipped' : 'passed';
  const outcome = failure ?? skipped;
  const message = outcome ? clip(outcome.getAttribute('message') || outcome.textContent?.trim() || null, MAX_MESSAGE) : null;
  const seconds = Number(element.getAttribute('time'));
  return {
    name: clip(element.getAttribute('name'), MAX_NAME) ?? '(unnamed)',
    className: clip(element.getAttribute('classname'), MAX_NAME),
    status,
    durationMs: element.hasAttribute('time') && Number.isFinite(seconds) && seconds >= 0 ? Math.min(Math.round(seconds * 1000), 2_147_483_647) : null,
    message,
    sessionId: sessionOf(element),
  };
}

/** The case's own `svc:session` property or system-out mention, else its suite's. */
function sessionOf(element: Element): string | null {
  for (let at: Element | null = element; at && (at.localName === 'testcase' || at.localName === 'testsuite'); at = parentElement(at)) {
    const properties = firstChild(at, 'properties');
    for (const property of properties ? Array.from(properties.getElementsByTagName('property')) : []) {
      if (property.parentNode !== properties || !SESSION_PROPERTIES.includes(property.getAttribute('name') ?? '')) continue;
      const value = (property.getAttribute('value') ?? property.textContent ?? '').trim();
      if (value) return value.slice(0, 200);
    }
    const output = firstChild(at, 'system-out')?.textContent?.match(SESSION_IN_OUTPUT);
    if (output) return output[1];
  }
  return null;
}

function firstChild(element: Element, name: string): Element | null {
  for (let node = element.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === node.ELEMENT_NODE && (node as Element).localName === name) return node as Element;
  }
  return null;
}

function parentElement(element: Element): Element | null {
  const parent = element.parentNode;
  return parent && parent.nodeType === parent.ELEMENT_NODE ? (parent as Element) : null;
}

function clip(value: string | null | undefined, max: number): string | null {
  const text = value?.trim();
  return text ? text.slice(0, max) : null;
}
