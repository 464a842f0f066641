import pino from 'pino';
import { logSettings } from '../config';

/**
 * Structured JSON logs. Nothing logs headers, bodies or query strings; the redact list is a
 * second line of defence for credentials that might reach a log object by mistake.
 */
const settings = logSettings();

export const logger = pino({
  level: settings.level,
  base: { service: settings.service },
  timestamp: pino.stdTimeFunctions.isoTime,
  redact: {
    paths: [
      'authorization',
      '*.authorization',
      'headers',
      '*.headers',
      'key',
      'secret',
      '*.secret',
      'client_secret',
      '*.client_secret',
      'access_token',
      'refresh_token',
      'token',
      '*.token',
      'body',
      '*.body',
    ],
    censor: '[redacted]',
  },
});

export type Logger = typeof logger;
