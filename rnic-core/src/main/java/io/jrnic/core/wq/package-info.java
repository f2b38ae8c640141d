/**
 * Work queues (Verbs §8): send and receive work queue elements in preallocated slots, the receive
 * queue, the accounting of outstanding WRs, and {@link io.jrnic.core.wq.ReceiveSource}, where a QP
 * takes the WQE for an incoming Send: its own receive queue or its S-RQ. Depends only on
 * {@code mem}.
 */
package io.jrnic.core.wq;
