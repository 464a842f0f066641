import type { Connection, Model, Schema } from 'mongoose';

/**
 * The model `name` on `connection`, bound on first use: each area's store binds its models to
 * the connection its root opened (never mongoose's default one), and a second store built on
 * the same connection reuses them.
 */
export function boundModel<T>(connection: Connection, name: string, schema: Schema<T>, collection: string): Model<T> {
  if (name in connection.models) return connection.models[name];
  return connection.model<T>(name, schema, collection);
}
