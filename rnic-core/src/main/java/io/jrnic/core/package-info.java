/**
 * The software RNIC behind the Verbs facade: {@link io.jrnic.core.SoftRnic}, which opens, wires and
 * closes everything, and its {@link java.util.ServiceLoader} provider. The implementation lives in
 * sub-packages that depend only downward (docs/architecture.md "Inside rnic-core"):
 * {@code mem} (STags, regions, windows, PDs), {@code wq} (work queue elements, receive queues),
 * {@code link} (the FPDU seam), {@code engine} (the per-QP iWARP engine), {@code qp} (the Verbs QP
 * state machine, QPs, CQs, S-RQs, events), {@code transport} (netty, MPA), {@code cm} (connection
 * management).
 */
package io.jrnic.core;
