import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { ServerResponse } from 'node:http';
import { documentCsp, setDocumentSecurityHeaders } from '../common/html/security-headers';
import { RELAY_VERSION } from '../relay/relay-version';

/** The OpenAPI document generated from the controllers and DTOs (also read by scripts/generate-api-types.js). */
export function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  return SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('svc relay')
      .setDescription(
        'Build collection, review, team and device relay API (see spec.md). The WebSocket endpoints ' +
          '(agent connection, device sessions) are not described here: see agent-protocol.md and docs/agents.md.',
      )
      .setVersion(RELAY_VERSION)
      .addCookieAuth('svc_token', { type: 'apiKey', in: 'cookie', description: 'session cookie (7 days)' }, 'svc_token')
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'svc_pat_<token>', description: 'personal access token' }, 'pat')
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'svc_scim_<token>', description: 'SCIM provisioning token (/scim/v2 only)' }, 'scim')
      .build(),
  );
}

/** Where SwaggerModule serves the page, its assets and the document (JSON, YAML). */
const API_DOCS_PATHS = ['/api/docs', '/api/docs-yaml', '/api/v1/openapi.json'];
/** Swagger UI's page has inline <style> blocks; its scripts are files, so script-src stays 'self'. */
const API_DOCS_CSP = documentCsp("'self' 'unsafe-inline'");

/**
 * OpenAPI JSON at /api/v1/openapi.json, browsable at /api/docs. The document is built on the first
 * request for it, not at boot: scanning every controller and DTO was ~0.5 s of each start
 * (docs/decisions.md#item-12) and its result sat in memory unused by most relays.
 * The page is on the dashboard's origin and "Try it out" sends the session cookie, so it gets the
 * dashboard's security headers (no framing, no sniffing), and so do its assets and the document.
 */
export function setupOpenApi(app: INestApplication): void {
  app.use(API_DOCS_PATHS, (_req: unknown, res: ServerResponse, next: () => void) => {
    setDocumentSecurityHeaders(res, API_DOCS_CSP);
    next();
  });
  SwaggerModule.setup('api/docs', app, () => createOpenApiDocument(app), {
    jsonDocumentUrl: 'api/v1/openapi.json',
    useGlobalPrefix: false,
  });
}
