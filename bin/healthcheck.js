#!/usr/bin/env node
'use strict';
// Container HEALTHCHECK: exit 0 when GET /api/v1/health on this machine answers 200, else 1.
// Speaks HTTPS when SVC_TLS_CERT is set (the relay's certificate is not verified: it is our own).
const http = require('node:http');
const https = require('node:https');

const port = Number(process.env.SVC_PORT || 8080);
const secure = !!process.env.SVC_TLS_CERT;
const request = (secure ? https : http).get(
  { host: '127.0.0.1', port, path: '/api/v1/health', timeout: 4000, rejectUnauthorized: false },
  (res) => {
    res.resume();
    process.exit(res.statusCode === 200 ? 0 : 1);
  },
);
request.on('timeout', () => request.destroy(new Error('timeout')));
request.on('error', () => process.exit(1));
