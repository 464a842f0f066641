import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../core/observability/logger';
import { PROBLEM_CODES, PROBLEM_TYPE_PREFIX } from '../core/problems';

/**
 * Requests Node's HTTP parser refuses never reach Koa, so without this they get a bare
 * `400 Bad Request` with no body and no request id, unlike every other error. Here they get the
 * same RFC 9457 document (code `malformed_request`, or 431/408/413 where the parser says so)
 * with a fresh request id, and the connection is closed: after a parse error the byte stream
 * cannot be trusted to find the next request.
 */
type ParserProblem = 'malformed_request' | 'request_timeout' | 'headers_too_large';

interface ClientErrorAnswer {
  code: ParserProblem;
  status: number;
  detail: string;
}

function answer(code: ParserProblem, detail: string): ClientErrorAnswer {
  return { code, status: PROBLEM_CODES[code].status, detail };
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Content Too Large', 431: 'Request Header Fields Too Large' };

export function clientErrorAnswer(errorCode: string | undefined): ClientErrorAnswer {
  switch (errorCode) {
    case 'HPE_HEADER_OVERFLOW':
      return answer('headers_too_large', 'The request headers are larger than the server accepts.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return answer('request_timeout', 'The request was not received completely in time.');
    default:
      return answer('malformed_request', 'The request is not valid HTTP/1.1 and was not processed.');
  }
}

export function clientErrorResponse(refusal: ClientErrorAnswer, requestId: string): string {
  const body = JSON.stringify({
    type: `${PROBLEM_TYPE_PREFIX}${refusal.code}`,
    title: PROBLEM_CODES[refusal.code].title,
    status: refusal.status,
    detail: refusal.detail,
    code: refusal.code,
    request_id: requestId,
    instance: `urn:service:developer-api:request:${requestId}`,
  });
  return [
    `HTTP/1.1 ${refusal.status} ${REASONS[refusal.status] ?? 'Bad Request'}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Cache-Control: no-store',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

export function answerClientErrors(server: Server, logger: Logger): void {
  server.on('clientError', (err: NodeJS.ErrnoException & { bytesParsed?: number }, socket: Duplex) => {
    // A reset or half-written socket has nobody to answer.
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = `req_${randomUUID().replace(/-/g, '')}`;
    const refusal = clientErrorAnswer(err.code);
    logger.info({ request_id: requestId, status: refusal.status, parser_error: err.code }, 'request refused by the HTTP parser');
    socket.end(clientErrorResponse(refusal, requestId));
  });
}
