import type { Context } from 'koa';
import type { Html } from '../../oauth/pageRendering';
import type { ConsoleVisitor } from '../consoleVisitor';

/** One section of the Settings page: its heading, its form and what it says; each section posts to its own operation. */
export type SettingsSection = (ctx: Context, visitor: ConsoleVisitor) => Promise<Html>;
