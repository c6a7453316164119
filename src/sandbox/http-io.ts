/** Writing answers on the wire. */
import type { ServerResponse } from 'node:http';

export function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  if (response.destroyed || response.headersSent) return;
  response.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

export function sendJson(response: ServerResponse, status: number, body: string): void {
  send(response, status, 'application/json; charset=utf-8', body);
}
