import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { MCP_USER_AGENT } from '../common/auth/principal';
import { RELAY_VERSION } from '../relay/relay-version';
import { CliError, RelayRefusedError } from '../relay-client/client-errors';
import { Connection, RelayClient } from '../relay-client/relay-client';
import { BUILD_PLATFORMS, BUILD_STATUSES } from '../relay-client/relay-types';
import { DeviceAnswer, deviceRequest } from './device-session-client';

/** Long enough for the relay's own timeouts to answer first (60 s for input, 10 min for install_build). */
const INPUT_WAIT_MS = 90_000;
const INSTALL_WAIT_MS = 11 * 60_000;

const BUTTONS = ['home', 'back', 'enter', 'volume_up', 'volume_down', 'lock'] as const;

const sessionId = z.string().min(1).describe('device session id, as listed by list_devices (session_id)');
const buildId = z.number().int().min(1).describe('build id, as listed by list_builds');
const fraction = (what: string) => z.number().min(0).max(1).describe(`${what}, a fraction 0–1 of the screen`);

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;
const ACTS = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;

const INSTRUCTIONS = `Tools for one svc relay: the team's mobile app builds and the simulators/emulators its agents connect.
Typical flow: list_builds (status "Backlog" = waiting for review) → compare_builds (what changed since the last build) → get_release_gate (what the release still needs) → list_devices (pick a booted one) → install_build →
launch_app → screenshot / ui_tree → tap, swipe, type_text, press_button → comment_on_build with a screenshot attached.
start_recording before the steps and stop_recording after them keep a video of the session with a timeline of what was done.
Coordinates are fractions 0–1 of the screen, like the frames in ui_tree. Every tool calls the relay's REST API or device-session
socket with your token, so it is allowed exactly when that route is: builds need the builds:write scope, devices the view scope.
Review verdicts (a build's status) are set by people in the dashboard, never through these tools.`;

/**
 * The relay's MCP tools over one connection (relay URL and the caller's PAT). Each tool is one call
 * of a REST route or the device-session socket with that PAT, so scopes, roles, validation and
 * messages are the route's own; a refusal becomes an MCP tool error carrying the relay's message.
 * Serves both transports: `svc mcp` (stdio) and POST /api/v1/mcp, which calls its own listener.
 */
export function createRelayMcpServer(given: Connection): McpServer {
  const connection: Connection = { ...given, userAgent: MCP_USER_AGENT };
  const relay = new RelayClient(connection);
  const device = (session: string, method: string, params: Record<string, unknown>, waitMs = INPUT_WAIT_MS) =>
    deviceRequest(connection, session, method, params, waitMs).then(deviceResult);
  const server = new McpServer({ name: 'svc-relay', version: RELAY_VERSION }, { instructions: INSTRUCTIONS });

  server.registerTool(
    'list_builds',
    {
      title: 'List builds',
      description:
        'Builds uploaded to the relay, a page at a time, newest first by default, as GET /api/v1/builds. ' +
        'Filter with status (Backlog = waiting for review), platform, app_id or q (searches the version name). ' +
        'Answers { items: [Build], total }. Needs a token with the builds:write scope.',
      inputSchema: {
        status: z.enum(BUILD_STATUSES).optional().describe('review status'),
        platform: z.enum(BUILD_PLATFORMS).optional(),
        app_id: z.number().int().min(1).optional().describe('only builds of this app'),
        q: z.string().optional().describe('searches the version name'),
        sort: z.enum(['uploaded_at', 'version_name', 'status_label']).optional().describe('default uploaded_at'),
        dir: z.enum(['asc', 'desc']).optional().describe('default desc'),
        page: z.number().int().min(0).optional().describe('0-based page, default 0'),
        limit: z.number().int().min(1).max(100).optional().describe('page size, default 20, max 100'),
      },
      annotations: { title: 'List builds', ...READ_ONLY },
    },
    (query) => guarded(async () => json(await relay.getJson('/builds', query))),
  );

  server.registerTool(
    'get_build',
    {
      title: 'Get a build',
      description:
        'One build with its app, version, platform, bundle id, review status, label and deletion schedule, as ' +
        'GET /api/v1/builds/:id. Needs the builds:write scope.',
      inputSchema: { build_id: buildId },
      annotations: { title: 'Get a build', ...READ_ONLY },
    },
    ({ build_id }) => guarded(async () => json(await relay.getJson(`/builds/${build_id}`))),
  );

  server.registerTool(
    'get_release_gate',
    {
      title: 'Read a build\'s release gate',
      description:
        'The release gate of a build, as GET /api/v1/builds/:id/gate: its state (none = no policy applies, pending, passed, ' +
        'failed), the policy it follows and where that comes from (svc.config.json or the dashboard), and every rule ' +
        '(approvals by role, no outstanding request for changes, rules on what changed since the previous build, device tests), ' +
        'met or not, with why and a link to the evidence. Also the members\' reviews, as GET /api/v1/builds/:id/reviews. ' +
        'Reviews are made by people in the dashboard, never through these tools. Needs the builds:write or view scope.',
      inputSchema: { build_id: buildId },
      annotations: { title: 'Read a build\'s release gate', ...READ_ONLY },
    },
    ({ build_id }) =>
      guarded(async () => {
        const [gate, reviews] = await Promise.all([relay.getJson(`/builds/${build_id}/gate`), relay.getJson(`/builds/${build_id}/reviews`)]);
        return json({ ...(gate as object), reviews: (reviews as { reviews: unknown[] }).reviews });
      }),
  );

  server.registerTool(
    'list_test_runs',
    {
      title: "List a build's test runs",
      description:
        "The build's device-test runs, as GET /api/v1/builds/:id/test-runs: each run (named by svc:name or the CI job that " +
        'uploaded its JUnit report) with its state (running, passed, failed, none), its WebDriver hub sessions and their ' +
        'svc:status, every test of its JUnit report (name, class, status, duration, failure message) and links to the ' +
        'sessions\' recordings. Needs the view, builds:write or devices scope.',
      inputSchema: { build_id: buildId },
      annotations: { title: "List a build's test runs", ...READ_ONLY },
    },
    ({ build_id }) => guarded(async () => json(await relay.getJson(`/builds/${build_id}/test-runs`))),
  );

  server.registerTool(
    'compare_builds',
    {
      title: 'Compare two builds',
      description:
        'What changed from one build to another of the same app and platform, as GET /api/v1/builds/:id/compare: size ' +
        'before/after overall and per category (dex, native code per ABI, frameworks…), the entries that grew most, ' +
        'permissions, features, ABIs, SDK levels, minimum iOS, frameworks, signing certificate, and flags with reasons ' +
        '(new permission, size jump, minimum SDK/OS raised, ABI removed, signing certificate changed, usage description added). ' +
        'Needs the builds:write scope.',
      inputSchema: {
        build_id: buildId,
        to: z
          .union([z.number().int().min(1), z.enum(['previous', 'last_done'])])
          .optional()
          .describe('a build id, "previous" (default: the build uploaded just before) or "last_done" (the latest Done one before)'),
      },
      annotations: { title: 'Compare two builds', ...READ_ONLY },
    },
    ({ build_id, to }) => guarded(async () => json(await relay.getJson(`/builds/${build_id}/compare`, { to: String(to ?? 'previous') }))),
  );

  server.registerTool(
    'list_devices',
    {
      title: 'List devices',
      description:
        'Every simulator, emulator and device of every agent connected to the relay, with its session_id (what the ' +
        'device tools take), platform, OS version, state (only booted devices answer) and whether its agent is online, ' +
        'as GET /api/v1/devices. Needs the view scope.',
      annotations: { title: 'List devices', ...READ_ONLY },
    },
    () => guarded(async () => json(await relay.getJson('/devices'))),
  );

  server.registerTool(
    'screenshot',
    {
      title: 'Take a screenshot',
      description:
        'The current screen of a booted device as an image, as GET /api/v1/sessions/:sessionId/screenshot. ' +
        'Needs the view scope.',
      inputSchema: { session_id: sessionId, format: z.enum(['png', 'jpeg']).optional().describe('default png') },
      annotations: { title: 'Take a screenshot', ...READ_ONLY },
    },
    ({ session_id, format }) =>
      guarded(async () => {
        const shot = await screenshotOf(relay, session_id, format);
        return { content: [{ type: 'image', data: shot.data.toString('base64'), mimeType: shot.mime }] };
      }),
  );

  server.registerTool(
    'ui_tree',
    {
      title: 'Read the UI tree',
      description:
        'The elements on screen with role, label, identifier, enabled and frame (x, y, width, height as fractions 0–1 ' +
        'of the screen; tap the centre of a frame to press it), as GET /api/v1/sessions/:sessionId/ui-tree. Needs the view scope.',
      inputSchema: { session_id: sessionId },
      annotations: { title: 'Read the UI tree', ...READ_ONLY },
    },
    ({ session_id }) => guarded(async () => json(await relay.getJson(`/sessions/${encodeURIComponent(session_id)}/ui-tree`))),
  );

  server.registerTool(
    'tap',
    {
      title: 'Tap',
      description: 'Taps a point of the screen of a booted device, through its device-session socket. Needs the view scope.',
      inputSchema: { session_id: sessionId, x: fraction('horizontal position'), y: fraction('vertical position') },
      annotations: { title: 'Tap', ...ACTS },
    },
    ({ session_id, x, y }) => guarded(() => device(session_id, 'tap', { x, y })),
  );

  server.registerTool(
    'swipe',
    {
      title: 'Swipe',
      description:
        'Drags from one point of the screen to another (scrolls, dismisses, pages), through the device-session socket. ' +
        'Needs the view scope.',
      inputSchema: {
        session_id: sessionId,
        from_x: fraction('start, horizontal'),
        from_y: fraction('start, vertical'),
        to_x: fraction('end, horizontal'),
        to_y: fraction('end, vertical'),
        duration_ms: z.number().int().min(0).max(10_000).optional().describe('how long the drag takes, default 300'),
      },
      annotations: { title: 'Swipe', ...ACTS },
    },
    ({ session_id, from_x, from_y, to_x, to_y, duration_ms }) =>
      guarded(() => device(session_id, 'swipe', { fromX: from_x, fromY: from_y, toX: to_x, toY: to_y, durationMs: duration_ms })),
  );

  server.registerTool(
    'type_text',
    {
      title: 'Type text',
      description: 'Types text into the focused field of a booted device (tap the field first). Needs the view scope.',
      inputSchema: { session_id: sessionId, text: z.string().min(1).max(4096) },
      annotations: { title: 'Type text', ...ACTS },
    },
    ({ session_id, text }) => guarded(() => device(session_id, 'type_text', { text })),
  );

  server.registerTool(
    'press_button',
    {
      title: 'Press a button',
      description: 'Presses a hardware or system button of a booted device. Needs the view scope.',
      inputSchema: { session_id: sessionId, button: z.enum(BUTTONS) },
      annotations: { title: 'Press a button', ...ACTS },
    },
    ({ session_id, button }) => guarded(() => device(session_id, 'press_button', { button })),
  );

  server.registerTool(
    'launch_app',
    {
      title: 'Launch an app',
      description:
        'Opens an installed app on a booted device by its bundle id (iOS) or package name (Android), the bundle_id of ' +
        'a build. Needs the view scope.',
      inputSchema: { session_id: sessionId, bundle_id: z.string().min(1).max(255).describe('e.g. com.example.app') },
      annotations: { title: 'Launch an app', ...ACTS },
    },
    ({ session_id, bundle_id }) => guarded(() => device(session_id, 'launch_app', { bundleId: bundle_id })),
  );

  server.registerTool(
    'install_build',
    {
      title: 'Install a build',
      description:
        'Installs a build on a booted device of the same platform: the device’s agent downloads it from the relay and ' +
        'installs it (this can take minutes for a large build). Answers the agent’s { installed, fileName, bytes, sha256 }. ' +
        'Needs the view scope.',
      inputSchema: { session_id: sessionId, build_id: buildId },
      annotations: { title: 'Install a build', ...ACTS },
    },
    ({ session_id, build_id }) =>
      guarded(() =>
        device(session_id, 'install_build', { buildId: build_id, url: `/api/v1/builds/${build_id}/download` }, INSTALL_WAIT_MS),
      ),
  );

  server.registerTool(
    'start_recording',
    {
      title: 'Start recording a device',
      description:
        'Starts recording the screen of a booted device to an MP4 (no re-encoding), with a timeline of every action done on it ' +
        'and a UI-tree snapshot every few seconds, as POST /api/v1/sessions/:sessionId/recordings. One recording per device at a time; ' +
        'it stops by itself after 30 minutes or when the device or its agent goes away. Answers { id, state, sessionId, buildId, ' +
        'startedAt, stopsAt, startedBy }. Needs the view scope.',
      inputSchema: {
        session_id: sessionId,
        build_id: buildId.optional().describe('the build under test (default: the last build installed on this device through the relay)'),
      },
      annotations: { title: 'Start recording a device', ...ACTS },
    },
    ({ session_id, build_id }) =>
      guarded(async () => json(await relay.postJson(`/sessions/${encodeURIComponent(session_id)}/recordings`, build_id ? { buildId: build_id } : {}))),
  );

  server.registerTool(
    'stop_recording',
    {
      title: 'Stop recording a device',
      description:
        'Stops the recording of a device and stores it for 72 hours, as POST /api/v1/sessions/:sessionId/recordings/stop. Answers the ' +
        'Recording { id, url, sessionId, fileSize, mime, createdAt, expiresAt }; its timeline is at url + "/timeline". Needs the view scope.',
      inputSchema: { session_id: sessionId },
      annotations: { title: 'Stop recording a device', ...ACTS },
    },
    ({ session_id }) => guarded(async () => json(await relay.postJson(`/sessions/${encodeURIComponent(session_id)}/recordings/stop`))),
  );

  server.registerTool(
    'comment_on_build',
    {
      title: 'Comment on a build',
      description:
        'Posts a comment on a build, optionally with a screenshot of a device attached, as POST /api/v1/comments. ' +
        'Comments never change the build’s review status: verdicts are a person’s. Needs the builds:write scope ' +
        '(and the view scope to attach a screenshot).',
      inputSchema: {
        build_id: buildId,
        body: z.string().min(1).describe('the comment text'),
        attach_screenshot_of: sessionId.optional().describe('session id of a booted device whose screen to attach'),
      },
      annotations: { title: 'Comment on a build', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    ({ build_id, body, attach_screenshot_of }) =>
      guarded(async () => {
        const fields = { build_id: String(build_id), body };
        if (!attach_screenshot_of) return json(await relay.postMultipart('/comments', fields, null));
        const shot = await screenshotOf(relay, attach_screenshot_of, 'png');
        return json(await postWithAttachment(relay, fields, shot.data));
      }),
  );

  return server;
}

function screenshotOf(relay: RelayClient, session: string, format: 'png' | 'jpeg' | undefined) {
  return relay.getBinary(`/sessions/${encodeURIComponent(session)}/screenshot`, { format });
}

/** POST /comments with the image as the `attachment` part, streamed from a temp file like every CLI upload. */
async function postWithAttachment(relay: RelayClient, fields: Record<string, string>, image: Buffer): Promise<unknown> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-mcp-'));
  try {
    const path = join(dir, 'screenshot.png');
    await writeFile(path, image);
    return await relay.postMultipart('/comments', fields, { field: 'attachment', path, name: 'screenshot.png', size: image.length });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function json(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
}

function deviceResult(answer: DeviceAnswer): CallToolResult {
  if (answer.ok) return json(answer.result);
  return toolError(`${answer.message} (${answer.code})`);
}

function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

/** A relay refusal or an unreachable relay is a tool error the model can read; anything else is a bug and propagates. */
async function guarded(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof RelayRefusedError) return toolError(`${err.relayMessage} (HTTP ${err.status})`);
    if (err instanceof CliError) return toolError(err.message);
    throw err;
  }
}
