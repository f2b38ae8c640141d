package io.jrnic.api;

/**
 * State of an STag (Verbs 1.0 §7.2.2 Figure 17 and §7.10.5).
 *
 * <p>Thread safety: immutable.
 */
public enum StagState {
    /** Only the index is meaningful; no access is possible (Verbs §7.2.2). */
    INVALID,
    /** Registered (region) or bound (window): access is possible subject to the checks. */
    VALID,
    /** Deallocated: the index has left the state machine and the handle is dead. */
    FREE
}
