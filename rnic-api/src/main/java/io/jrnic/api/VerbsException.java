package io.jrnic.api;

/**
 * A verb failed with an Immediate Error (Verbs 1.0 §8.3.1, §9.5.1). The subject resource is
 * unchanged. For list posts {@link #postedCount()} tells how many work requests before the
 * failing one were accepted (Verbs §8.2.1, V-WRP-4).
 *
 * <p>Thread safety: immutable.
 */
public final class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The Verbs status of the failure. */
    private final VerbsStatus status;
    /** How many work requests of a list were posted before the failing one. */
    private final int postedCount;

    /**
     * Creates the exception.
     *
     * @param status  the 9.5.1 status
     * @param message what was wrong, naming the offending argument
     */
    public VerbsException(VerbsStatus status, String message) {
        this(status, message, 0);
    }

    /**
     * Creates the exception for a list post.
     *
     * @param status      the 9.5.1 status of the first failing work request
     * @param message     what was wrong
     * @param postedCount number of work requests accepted before the failing one
     */
    public VerbsException(VerbsStatus status, String message, int postedCount) {
        super(status + ": " + message);
        this.status = status;
        this.postedCount = postedCount;
    }

    /**
     * The Immediate Error.
     *
     * @return the status
     */
    public VerbsStatus status() {
        return status;
    }

    /**
     * Work requests of the list accepted before the failure (0 for single posts and other verbs).
     *
     * @return the count
     */
    public int postedCount() {
        return postedCount;
    }
}
