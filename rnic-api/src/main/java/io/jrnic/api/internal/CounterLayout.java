package io.jrnic.api.internal;

import io.jrnic.api.Counters;
import io.jrnic.api.MessageType;

/**
 * The slots of a counter array, shared by {@link Counters} and the implementation's live counters
 * so that a snapshot is one loop over a {@code long[]} (docs/observability.md). Per message type
 * (indexed by {@link MessageType#ordinal()}): messages sent, DDP payload bytes sent, messages
 * received, DDP payload bytes received; then the scalars.
 *
 * <p>Thread safety: constants only.
 */
public final class CounterLayout {
    /** Number of message types, the stride of the per-message blocks. */
    public static final int TYPES = MessageType.values().length;
    /** First slot of the messages sent, by type. */
    public static final int MESSAGES_SENT = 0;
    /** First slot of the payload bytes sent, by type. */
    public static final int BYTES_SENT = TYPES;
    /** First slot of the messages received, by type. */
    public static final int MESSAGES_RECEIVED = 2 * TYPES;
    /** First slot of the payload bytes received, by type. */
    public static final int BYTES_RECEIVED = 3 * TYPES;
    /** FPDUs handed to the LLP. */
    public static final int FPDUS_SENT = 4 * TYPES;
    /** Verified FPDUs delivered by the LLP. */
    public static final int FPDUS_RECEIVED = FPDUS_SENT + 1;
    /** FPDUs whose MPA CRC did not match. */
    public static final int CRC_ERRORS = FPDUS_SENT + 2;
    /** Terminates sent. */
    public static final int TERMINATES_SENT = FPDUS_SENT + 3;
    /** Terminates received, valid or not. */
    public static final int TERMINATES_RECEIVED = FPDUS_SENT + 4;
    /** Payload bytes the LLP read straight into registered memory. */
    public static final int BYTES_PLACED_DIRECT = FPDUS_SENT + 5;
    /** Payload bytes copied into registered memory from a receive buffer. */
    public static final int BYTES_COPIED = FPDUS_SENT + 6;
    /** Connections ended by the progress timeout (ConnectionSettings.progressTimeout). */
    public static final int PROGRESS_TIMEOUTS = FPDUS_SENT + 7;
    /** Length of a counter array. */
    public static final int LENGTH = FPDUS_SENT + 8;

    private CounterLayout() {
    }
}
