package io.ferry.transport.ledbat.wire;

/**
 * The outcome of checking a received datagram against the BEP 29 version-1 format.
 *
 * <p>Every value but {@link #VALID} means the datagram must be dropped and counted; none of them is
 * ever reported by throwing.
 */
public enum PacketValidity {
    /** Well formed: a version-1 header of a known type, with a well-formed extension chain. */
    VALID,
    /** Shorter than the 20-byte header. */
    TOO_SHORT,
    /** The version nibble is not 1. */
    BAD_VERSION,
    /** The type nibble names no packet type (5..15). */
    UNKNOWN_TYPE,
    /** An extension header or its payload runs past the end of the datagram. */
    TRUNCATED_EXTENSION,
    /** A selective-ACK extension whose length is zero or not a multiple of 4. */
    BAD_SACK_LENGTH
}
