import type { RpcOutcome } from '../agents/agent-rpc.service';

/** Methods that only look at the device: not recorded (every screenshot would flood the log). */
const READ_ONLY_METHODS = new Set(['screenshot', 'ui_tree', 'get_logs', 'list_apps']);

/** Parameters worth keeping, per method; typed text is kept only as its length (it may be a password). */
const KEPT_PARAMS = ['x', 'y', 'x1', 'y1', 'x2', 'y2', 'from_x', 'from_y', 'to_x', 'to_y', 'button', 'bundle_id', 'package', 'app_id', 'build_id', 'url_scheme'];

export function isRecordedDeviceAction(method: string): boolean {
  return !READ_ONLY_METHODS.has(method);
}

/** The audit details of one device request: a few safe parameters and how it ended. */
export function deviceActionDetails(method: string, params: Record<string, unknown>, outcome: RpcOutcome): Record<string, string | number | boolean | null> {
  const details: Record<string, string | number | boolean | null> = { method, outcome: outcomeOf(outcome) };
  for (const key of KEPT_PARAMS) {
    const value = params[key];
    if (typeof value === 'number' || typeof value === 'boolean') details[key] = value;
    else if (typeof value === 'string') details[key] = value.slice(0, 200);
  }
  if (typeof params.text === 'string') details.text_length = params.text.length;
  return details;
}

/** Timeline params (session recordings) per protocol method, in the protocol's camelCase names. */
const TIMELINE_PARAMS = ['x', 'y', 'fromX', 'fromY', 'toX', 'toY', 'durationMs', 'button', 'bundleId', 'buildId'];

/** What a session recording's timeline keeps of a device request: the same rule as the audit (text only as its length). */
export function timelineDetail(params: Record<string, unknown>): Record<string, string | number | boolean> {
  const detail: Record<string, string | number | boolean> = {};
  for (const key of TIMELINE_PARAMS) {
    const value = params[key];
    if (typeof value === 'number' && Number.isFinite(value)) detail[key] = value;
    else if (typeof value === 'boolean') detail[key] = value;
    else if (typeof value === 'string') detail[key] = value.slice(0, 200);
  }
  if (typeof params.text === 'string') detail.textLength = params.text.length;
  return detail;
}

export function outcomeOf(outcome: RpcOutcome): string {
  return outcome.kind === 'error' ? `error:${outcome.code}` : outcome.kind;
}
