/**
 * A hub session's WebDriver command timeline (docs/device-tests.md "What is recorded"): one entry
 * per command its client sent, in order, with what it did, on which element, how long it took and
 * the W3C error it got. Typed text and script arguments are never kept (they may be passwords).
 */
export interface TimelineCommand {
  /** ms from the recording's first frame (clamped at 0), or from the session's start when it has no recording. */
  at: number;
  method: 'GET' | 'POST' | 'DELETE';
  /** The path below `/session/<id>` (`/element/<element id>/click`), `''` for the session itself. */
  path: string;
  /** The W3C command's name (`findElement`, `elementClick`), or null for one the table does not name (vendor commands). */
  command: string | null;
  /** The element the command acts on; for a find, the element found. */
  elementId: string | null;
  /** A find's strategy and selector (`accessibility id`, `username`). */
  locator: { using: string; value: string } | null;
  durationMs: number;
  /** Appium's HTTP status, or the hub's for a W3C error of the relay (agent offline). */
  status: number;
  error: { error: string; message: string } | null;
}

export interface CommandTimeline {
  commands: TimelineCommand[];
  /** More than MAX_COMMANDS were sent: the first ones are kept. */
  truncated: boolean;
}

export const MAX_COMMANDS = 5000;
const MAX_TEXT = 500;
const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';

/** W3C WebDriver's commands (and Appium's common ones) by method and path, `:e` standing for an element id. */
const COMMANDS: [string, RegExp, string][] = [
  ['DELETE', /^$/, 'deleteSession'],
  ['POST', /^\/element$/, 'findElement'],
  ['POST', /^\/elements$/, 'findElements'],
  ['POST', /^\/element\/:e\/element$/, 'findElementFromElement'],
  ['POST', /^\/element\/:e\/elements$/, 'findElementsFromElement'],
  ['GET', /^\/element\/active$/, 'getActiveElement'],
  ['POST', /^\/element\/:e\/click$/, 'elementClick'],
  ['POST', /^\/element\/:e\/clear$/, 'elementClear'],
  ['POST', /^\/element\/:e\/value$/, 'elementSendKeys'],
  ['GET', /^\/element\/:e\/text$/, 'getElementText'],
  ['GET', /^\/element\/:e\/name$/, 'getElementTagName'],
  ['GET', /^\/element\/:e\/attribute\/[^/]+$/, 'getElementAttribute'],
  ['GET', /^\/element\/:e\/property\/[^/]+$/, 'getElementProperty'],
  ['GET', /^\/element\/:e\/css\/[^/]+$/, 'getElementCSSValue'],
  ['GET', /^\/element\/:e\/rect$/, 'getElementRect'],
  ['GET', /^\/element\/:e\/enabled$/, 'isElementEnabled'],
  ['GET', /^\/element\/:e\/selected$/, 'isElementSelected'],
  ['GET', /^\/element\/:e\/displayed$/, 'isElementDisplayed'],
  ['GET', /^\/element\/:e\/screenshot$/, 'takeElementScreenshot'],
  ['POST', /^\/actions$/, 'performActions'],
  ['DELETE', /^\/actions$/, 'releaseActions'],
  ['POST', /^\/execute\/sync$/, 'executeScript'],
  ['POST', /^\/execute\/async$/, 'executeAsyncScript'],
  ['GET', /^\/screenshot$/, 'takeScreenshot'],
  ['GET', /^\/source$/, 'getPageSource'],
  ['GET', /^\/timeouts$/, 'getTimeouts'],
  ['POST', /^\/timeouts$/, 'setTimeouts'],
  ['GET', /^\/window\/rect$/, 'getWindowRect'],
  ['GET', /^\/orientation$/, 'getOrientation'],
  ['POST', /^\/orientation$/, 'setOrientation'],
  ['POST', /^\/appium\/device\/activate_app$/, 'activateApp'],
  ['POST', /^\/appium\/device\/terminate_app$/, 'terminateApp'],
  ['POST', /^\/se\/log$/, 'getLog'],
];

/** One timeline entry for a command (`at` still the epoch ms it arrived: placed on the recording at the end). */
export function timelineCommand(
  sessionId: string,
  command: {
    method: 'GET' | 'POST' | 'DELETE';
    path: string;
    body: unknown;
    at: number;
    durationMs: number;
    answer: { status: number; body: unknown } | null;
    failure: { code: string; message: string; status: number } | null;
  },
): TimelineCommand {
  const prefix = `/session/${sessionId}`;
  const path = command.path.startsWith(prefix) ? command.path.slice(prefix.length) : command.path;
  const pathElement = /^\/element\/([^/]+)\//.exec(path)?.[1] ?? null;
  const shape = pathElement && pathElement !== 'active' ? path.replace(`/element/${pathElement}/`, '/element/:e/') : path;
  const name = COMMANDS.find(([method, pattern]) => method === command.method && pattern.test(shape))?.[2] ?? null;
  const find = name?.startsWith('findElement') ?? false;
  const value = (command.answer?.body as { value?: unknown } | null)?.value;
  return {
    at: command.at,
    method: command.method,
    path: clip(path),
    command: name === 'executeScript' ? scriptName(command.body) : name,
    elementId: pathElement && pathElement !== 'active' ? clip(pathElement) : find ? foundElement(value) : null,
    locator: find ? locatorOf(command.body) : null,
    durationMs: command.durationMs,
    status: command.answer?.status ?? command.failure?.status ?? 500,
    error: command.failure
      ? { error: clip(command.failure.code), message: clip(command.failure.message) }
      : command.answer && command.answer.status >= 400
        ? errorOf(value)
        : null,
  };
}

/** Moves each command's `at` from epoch ms to ms after `zero` (the recording's first frame, or the session's start), never below 0. */
export function placeOnTimeline(commands: TimelineCommand[], zero: number): TimelineCommand[] {
  return commands.map((c) => ({ ...c, at: Math.max(0, c.at - zero) }));
}

/**
 * The command a failure points at: the last that answered an error, else the last the client sent
 * before ending (an assertion of the test's own fails after the command whose answer it checked).
 * The session's own end and svc:status are never it. null: no command.
 */
export function failingCommand(commands: TimelineCommand[]): TimelineCommand | null {
  const steps = commands.filter((c) => c.command !== 'deleteSession' && c.command !== 'executeScript svc:status');
  return [...steps].reverse().find((c) => c.error !== null) ?? steps.at(-1) ?? null;
}

/** `executeScript` names the script when it is a named one (`mobile: scroll`, `svc:status`); a JavaScript body stays unnamed. */
function scriptName(body: unknown): string {
  const script = (body as { script?: unknown } | null)?.script;
  return typeof script === 'string' && /^[a-z]+:\s?[\w .-]{1,80}$/i.test(script) ? `executeScript ${script}` : 'executeScript';
}

function locatorOf(body: unknown): { using: string; value: string } | null {
  const { using, value } = (body ?? {}) as { using?: unknown; value?: unknown };
  return typeof using === 'string' && typeof value === 'string' ? { using: clip(using), value: clip(value) } : null;
}

function foundElement(value: unknown): string | null {
  const id = (value as Record<string, unknown> | null)?.[ELEMENT_KEY] ?? (value as { ELEMENT?: unknown } | null)?.ELEMENT;
  return typeof id === 'string' ? clip(id) : null;
}

function errorOf(value: unknown): { error: string; message: string } {
  const { error, message } = (value ?? {}) as { error?: unknown; message?: unknown };
  return { error: typeof error === 'string' ? clip(error) : 'unknown error', message: typeof message === 'string' ? clip(message) : '' };
}

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}
