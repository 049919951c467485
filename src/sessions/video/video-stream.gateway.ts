import { BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { OnGatewayConnection, OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';
import { Auth } from '../../common/auth/auth.decorator';
import type { Principal } from '../../common/auth/principal';
import { ErrorMessages } from '../../common/errors/error-messages';
import { conflict, HttpError, notFound } from '../../common/errors/http-error';
import { authorizeUpgrades, upgradeContext } from '../../common/net/upgrade-routing-ws-adapter';
import { WsHeartbeat } from '../../common/net/ws-heartbeat';
import { RelayConfig } from '../../config/relay-config';
import { DeviceSessionClients, deviceSessionClient } from '../device-session-clients.service';
import { DeviceSessionsService, isOnline, SESSION_NOT_FOUND } from '../device-sessions.service';
import { VideoHub } from './video-hub.service';
import { isKeyFrameRequest, VideoViewer } from './video-viewer';

export const VIDEO_STREAM_PATH = '/api/v1/sessions/:sessionId/stream';

interface ViewerUpgrade {
  sessionId: string;
  principal: Principal;
}

/**
 * Viewers' sockets for a session's live video (docs/agents.md "Live video"): admitted exactly like
 * the device-session socket (the same @Auth through UpgradeRoutingWsAdapter: cookie with the Origin
 * rule, or PAT(view); 404 unknown session, 409 shut down, 502 agent offline). Viewers only listen,
 * but for `{ "type": "keyframe" }` when their decoder needs one; anything else they send is ignored. Each is also a DeviceSessionClient without events, so revocations,
 * sign-outs, member removal and the agent going away (4502) close it as they close the others.
 */
@Auth({ cookie: true, pat: 'view' })
@WebSocketGateway({ path: VIDEO_STREAM_PATH, maxPayload: 4096, perMessageDeflate: false })
export class VideoStreamGateway implements OnGatewayInit, OnGatewayConnection, BeforeApplicationShutdown {
  private readonly logger = new Logger('LiveVideo');
  private heartbeat: WsHeartbeat | null = null;

  constructor(
    private readonly sessions: DeviceSessionsService,
    private readonly clients: DeviceSessionClients,
    private readonly hub: VideoHub,
    private readonly config: RelayConfig,
  ) {}

  afterInit(server: WebSocketServer): void {
    authorizeUpgrades(server, this, (_req, params, principal) => this.admit(params.sessionId, principal));
    this.heartbeat = new WsHeartbeat(this.config.agents.pingIntervalMs);
  }

  handleConnection(socket: WebSocket, req: IncomingMessage): void {
    const upgrade = upgradeContext<ViewerUpgrade>(req);
    if (!upgrade) return socket.close(1011, 'not authorized');
    const { principal, sessionId } = upgrade;
    const client = deviceSessionClient(socket, sessionId, principal, true);
    const viewer = new VideoViewer(socket);
    this.clients.add(client);
    this.heartbeat?.track(socket);
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (isKeyFrameRequest(data, isBinary) && viewer.askedForKeyFrame()) this.hub.keyFrameWanted(sessionId, viewer);
    });
    socket.on('close', () => {
      this.clients.remove(client);
      this.hub.leave(sessionId, viewer);
      this.logger.debug(`A viewer of ${sessionId} left: ${viewer.framesSent} frames sent, ${viewer.framesDropped} dropped`);
    });
    this.hub.join(sessionId, viewer, ({ code, reason }) =>
      this.clients.closeWhere((c) => c.video === true && c.sessionId === sessionId, code, reason),
    );
  }

  /** The sockets themselves are closed with 1001 by the adapter. */
  beforeApplicationShutdown(): void {
    this.heartbeat?.stop();
  }

  /** After the credential: 404 unknown session, 409 shut down, 502 its agent not connected. */
  private async admit(sessionId: string, principal: Principal): Promise<ViewerUpgrade> {
    const place = await this.sessions.locate(sessionId);
    if (!place) throw notFound(SESSION_NOT_FOUND);
    if (place.device.state !== 'booted') throw conflict(ErrorMessages.deviceNotBooted);
    if (!isOnline(place)) throw new HttpError(502, ErrorMessages.agentOffline);
    return { sessionId, principal };
  }
}
