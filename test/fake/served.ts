/**
 * JSON as the fake or the real API server (or a webhook's caller) serves it, which these tests read
 * without a schema: the scenarios compare both servers' answers field by field, of every shape.
 */
// biome-ignore lint/suspicious/noExplicitAny: served JSON of any shape, read by the tests without a schema
export type Served = any;
