import { JUnitReportError, MAX_TEST_CASES, readJUnitReport } from './junit-report';

describe('readJUnitReport', () => {
  it('reads cases, outcomes, durations and the session each names (property, system-out, or its suite)', () => {
    const report = readJUnitReport(`<?xml version="1.0"?>
<testsuites name="ci / smoke">
  <testsuite name="login">
    <properties><property name="sessionId" value="suite-session"/></properties>
    <testcase name="shows the inbox" classname="login.spec" time="1.5"/>
    <testcase name="rejects a bad password" classname="login.spec" time="0.25">
      <failure message="expected error banner" type="AssertionError">stack…</failure>
      <properties><property name="svc:session" value="own-session"/></properties>
    </testcase>
    <testcase name="crashes" classname="login.spec"><error>boom</error><system-out>svc:session=out-session</system-out></testcase>
    <testcase name="later" classname="login.spec" time="x"><skipped/></testcase>
  </testsuite>
</testsuites>`);
    expect(report).toEqual({
      name: 'ci / smoke',
      cases: [
        { name: 'shows the inbox', className: 'login.spec', status: 'passed', durationMs: 1500, message: null, sessionId: 'suite-session' },
        { name: 'rejects a bad password', className: 'login.spec', status: 'failed', durationMs: 250, message: 'expected error banner', sessionId: 'own-session' },
        { name: 'crashes', className: 'login.spec', status: 'failed', durationMs: null, message: 'boom', sessionId: 'out-session' },
        { name: 'later', className: 'login.spec', status: 'skipped', durationMs: null, message: null, sessionId: 'suite-session' },
      ],
    });
  });

  it('takes a lone <testsuite> as the root', () => {
    expect(readJUnitReport('<testsuite><testcase name="a"/></testsuite>').cases).toHaveLength(1);
  });

  it.each([
    ['<testsuites><testsuite>', /^The JUnit report is not well-formed XML: .*unclosed/],
    ['<a><b></a>', /^The JUnit report is not well-formed XML: /],
    ['not xml at all', /^The JUnit report is not well-formed XML: /],
    ['<html><body/></html>', /^The JUnit report's root element is <html>; expected <testsuites> or <testsuite>$/],
    ['<!DOCTYPE x [<!ENTITY a "aaaa">]><testsuites>&a;</testsuites>', /DOCTYPE/],
  ])('refuses %s with a sentence', (xml, message) => {
    expect(() => readJUnitReport(xml)).toThrow(JUnitReportError);
    expect(() => readJUnitReport(xml)).toThrow(message);
  });

  it('refuses a report with more cases than it takes', () => {
    const xml = `<testsuite>${'<testcase name="t"/>'.repeat(MAX_TEST_CASES + 1)}</testsuite>`;
    expect(() => readJUnitReport(xml)).toThrow(`The JUnit report has ${MAX_TEST_CASES + 1} test cases; at most ${MAX_TEST_CASES} are taken`);
  });
});
