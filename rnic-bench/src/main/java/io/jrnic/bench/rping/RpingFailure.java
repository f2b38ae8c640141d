package io.jrnic.bench.rping;

/**
 * An rping run that failed: setup refused, a completion with an error status, bogus data, a
 * mismatch under {@code -V}, or a peer that stopped answering. The message is what rping prints.
 *
 * <p>Thread safety: immutable.
 */
public class RpingFailure extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * Creates a failure.
     *
     * @param message what went wrong, as printed
     */
    public RpingFailure(String message) {
        super(message);
    }

    /**
     * Creates a failure with its cause.
     *
     * @param message what went wrong, as printed
     * @param cause   the underlying exception
     */
    public RpingFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
