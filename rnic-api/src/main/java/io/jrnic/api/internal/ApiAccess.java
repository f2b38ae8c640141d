package io.jrnic.api.internal;

import io.jrnic.api.Counters;
import io.jrnic.api.Opcode;
import io.jrnic.api.QueuePair;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;

import java.lang.invoke.MethodHandles;

/**
 * What only the RNIC implementation may do to API objects: fill a polled {@link WorkCompletion}
 * and a {@link Counters} holder.
 * The package is exported to {@code io.jrnic.core} alone, so on the module path applications
 * cannot reach it; the API classes install the one instance from their static initializers.
 *
 * <p>Thread safety: thread safe; the instance is stateless.
 */
public abstract class ApiAccess {
    private static volatile ApiAccess instance;

    /** For the API classes' installer only. */
    protected ApiAccess() {
    }

    /**
     * Installs the accessor (once, from {@link WorkCompletion}'s static initializer).
     *
     * @param access the accessor
     * @throws IllegalStateException when one is installed already
     */
    public static void install(ApiAccess access) {
        if (instance != null) {
            throw new IllegalStateException("ApiAccess is installed already");
        }
        instance = access;
    }

    /**
     * The accessor; initializes the API classes that install it.
     *
     * @return the accessor
     */
    public static ApiAccess get() {
        ApiAccess a = instance;
        if (a == null) {
            try {
                MethodHandles.lookup().ensureInitialized(WorkCompletion.class);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            a = instance;
        }
        return a;
    }

    /**
     * Fills every field of a completion (Poll for Completion, Verbs 1.0 §9.3.2.1).
     *
     * @param wc              the caller's completion
     * @param wrId            the 64-bit WR ID
     * @param opcode          the operation type
     * @param status          the completion status
     * @param byteLength      bytes received (Receive only)
     * @param queuePair       the QP where the WR was posted
     * @param stagInvalidated whether an incoming Send with Invalidate invalidated an STag
     * @param invalidatedStag that STag
     */
    public abstract void set(WorkCompletion wc, long wrId, Opcode opcode, WorkCompletionStatus status,
                             int byteLength, QueuePair queuePair, boolean stagInvalidated, int invalidatedStag);

    /**
     * Attaches RFC 7306 Immediate Data to a receive completion (after {@link #set}, which clears it).
     *
     * @param wc   the completion
     * @param data the 8 bytes of Immediate Data
     */
    public abstract void immediateData(WorkCompletion wc, long data);

    /**
     * The slots of a counter holder ({@link CounterLayout}), for the implementation to fill.
     *
     * @param counters the caller's holder
     * @return its array (not a copy)
     */
    public abstract long[] counterValues(Counters counters);
}
