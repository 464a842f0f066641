import type { Collection, Document } from 'mongodb';
import type { Model } from 'mongoose';

/**
 * The native collection behind a model, typed by the documents it holds. Domain code reaches
 * the driver only through this (and the primitives in core/store): inserts that must be a
 * single unique insert (the one write FerretDB 1.x applies atomically), bulk inserts that skip
 * duplicates, and streamed full reads.
 */
// Only the collection is asked of the model: asking for a whole `Model<any>` makes TypeScript
// compare the models' generics, which it answers differently with the program around it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function typedCollection<T extends Document>(model: Pick<Model<any>, 'collection'>): Collection<T> {
  // Why the assertion: mongoose types `Model.collection` as holding untyped documents with
  // ObjectId ids; ours have string ids and the shape `T` the schema declares. This is the one
  // place the two type systems meet.
  return model.collection as unknown as Collection<T>;
}
