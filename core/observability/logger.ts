import pino from 'pino';

/**
 * Structured JSON logs. Nothing logs headers, bodies or query strings; the redact list is a
 * second line of defence for credentials that might reach a log object by mistake.
 */
export const logger = pino({
  level: process.env.LOG_LEVEL || 'info',
  base: { service: process.env.SERVICE_NAME || 'talent-platform' },
  timestamp: pino.stdTimeFunctions.isoTime,
  redact: {
    paths: [
      'authorization', '*.authorization', 'headers', '*.headers', 'key', 'secret', '*.secret',
      'client_secret', '*.client_secret', 'access_token', 'refresh_token', 'token', '*.token', 'body', '*.body',
    ],
    censor: '[redacted]',
  },
});

export type Logger = typeof logger;
