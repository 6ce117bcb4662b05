/** `T` with its `readonly` fields writable: for building a readonly shape field by field on a hot path. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
