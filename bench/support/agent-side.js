'use strict';
/**
 * The relay's side of agent-protocol.md as the two hand-written screenshot baselines need it (the
 * hop and direct over the protocol): agents listed by the sessions they announce, binary answers
 * read as fragments (never joined, as the relay reads them) and handed on decoded.
 */
const { decodeBinaryFragments } = require('../../dist/agents/protocol/agent-protocol');

/** `agents` is filled with sessionId → socket; `onFrame` gets each decoded binary answer. */
function acceptAgents(wss, agents, onFrame) {
  wss.on('connection', (socket) => {
    socket.binaryType = 'fragments';
    socket.on('message', (data, isBinary) => {
      if (!isBinary) {
        const message = JSON.parse(data.toString());
        if (message.type === 'devices') for (const device of message.devices) agents.set(device.sessionId, socket);
        return;
      }
      const frame = decodeBinaryFragments(data);
      if (frame?.header?.id) onFrame(frame);
    });
  });
}

module.exports = { acceptAgents };
