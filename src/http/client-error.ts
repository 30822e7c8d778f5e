import { type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../errors/api-error.ts';
import type { ErrorCode } from '../errors/codes.ts';
import { newRequestId } from './request-context.ts';

/** How long an answered connection may stay open for the peer to read the answer and close. */
const lingerMs = 2_000;

/**
 * The public code of a refusal Node's HTTP layer makes before a request reaches Express (the service document's
 * description in spec/openapi/service.openapi.yaml): a header section over the size limit (431), a request whose
 * headers or body did not arrive in time (408), a chunk extension over its limit (413), or any other request Node
 * cannot parse (400). Null for a failure of the connection itself (a reset), which gets no answer.
 */
export function clientErrorCode(err: NodeJS.ErrnoException): ErrorCode | null {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'HEADERS_TOO_LARGE';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'REQUEST_TIMEOUT';
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return 'PAYLOAD_TOO_LARGE';
    default:
      return err.code?.startsWith('HPE_') ? 'MALFORMED_HTTP_REQUEST' : null;
  }
}

/**
 * A complete HTTP/1.1 response carrying the ApiError body (spec/schemas/api-error.schema.json) of `code`, with a
 * fresh request id and `Connection: close`: what answerClientErrors writes on the raw socket.
 */
export function clientErrorResponse(code: ErrorCode, headers: Record<string, string> = {}): string {
  const requestId = newRequestId();
  const error = new ApiError(code);
  const body = JSON.stringify(error.toBody(requestId));
  const lines = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    'Cache-Control: no-store',
    `X-Request-Id: ${requestId}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

type ClientSocket = Duplex & { _httpMessage?: { headersSent?: boolean } | null };

/**
 * Answers every refusal Node makes before Express with an ApiError body instead of Node's bare status line
 * (`clientError` of node:http): on a writable socket with no response under way, the response of clientErrorResponse,
 * then the connection closes; otherwise the socket is destroyed. `headers` are added to every such answer (the
 * developer API's CORS header). Used on both listeners (spec/openapi/service.openapi.yaml and
 * spec/openapi/developer-api.openapi.yaml descriptions).
 */
export function answerClientErrors(server: Server, headers: Record<string, string> = {}): Server {
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (err: NodeJS.ErrnoException, socket: ClientSocket) => {
    // The failed parser reports again on every later chunk of the same connection: answer once.
    if (answered.has(socket)) return;
    answered.add(socket);
    const code = clientErrorCode(err);
    if (code === null || !socket.writable || socket._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    // Ending (not destroying) lets the answer reach a peer still sending: closing with its bytes unread would reset
    // the connection and lose the answer. A peer that never closes is cut after the linger.
    socket.end(clientErrorResponse(code, headers));
    setTimeout(() => socket.destroy(), lingerMs).unref();
  });
  return server;
}
