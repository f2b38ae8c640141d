package io.jrnic.api;

import java.util.Objects;

/**
 * Event Record of an asynchronous event (Verbs 1.0 §9.4.2): Event Identifier, Resource Indicator
 * (from the type) and Resource Identifier (the handle).
 *
 * @param type     the Event Identifier
 * @param resource the handle of the affected resource: a {@link QueuePair}, {@link CompletionQueue},
 *                 {@link SharedReceiveQueue} or {@link Rnic} as {@link AsyncEventType#resourceType()} says
 */
public record AsyncEvent(AsyncEventType type, Object resource) {
    /**
     * Validates the record.
     *
     * @param type     the Event Identifier
     * @param resource the resource handle of the kind the type names
     */
    public AsyncEvent {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(resource, "resource");
        boolean ok = switch (type.resourceType()) {
            case QP -> resource instanceof QueuePair;
            case CQ -> resource instanceof CompletionQueue;
            case SRQ -> resource instanceof SharedReceiveQueue;
            case RNIC -> resource instanceof Rnic;
        };
        if (!ok) {
            throw new IllegalArgumentException("resource " + resource + " does not match " + type);
        }
    }

    /**
     * The Resource Indicator.
     *
     * @return the resource type
     */
    public ResourceType resourceType() {
        return type.resourceType();
    }

    /**
     * The QP ID for QP-affiliated events (Verbs §8.3.3 SHOULD, V-ERR-17).
     *
     * @return the QP ID, or -1 when the event is not QP-affiliated
     */
    public int qpId() {
        return resource instanceof QueuePair qp ? qp.id() : -1;
    }
}
