/* eslint-disable */
// Run by the tests inside the test LAN's namespace (`ip netns exec … node tcp-forwarder.js <listen address> <target host> <target port>`):
// a LAN machine whose port leads to a local forge listening on this machine's LAN address. Prints {"port":N} once listening.
'use strict';
const net = require('node:net');
const [listenAddress, targetHost, targetPort] = process.argv.slice(2);
const server = net.createServer((client) => {
  const upstream = net.connect(Number(targetPort), targetHost);
  client.pipe(upstream).pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
});
server.listen(0, listenAddress, () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n'));
