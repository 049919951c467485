/**
 * The payload of a binary response as it arrived: the message's fragments (or slices of them),
 * in order, never joined, so a 1 MiB screenshot is not copied on its way through the relay.
 */
export type BinaryPayload = readonly Buffer[];
