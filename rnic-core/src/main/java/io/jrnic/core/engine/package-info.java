/**
 * The per-QP iWARP engine (RFC 5040 RDMAP, RFC 5041 DDP placement, RFC 7306, the commit draft):
 * {@link io.jrnic.core.engine.QpEngine} with its transmit and receive state machines, the IRD and
 * ORD queues and the Terminate latch. It runs over an {@link io.jrnic.core.link.FpduLink} and knows
 * its QP only through {@link io.jrnic.core.engine.QpContext}; it reports through
 * {@link io.jrnic.core.engine.QpTransport.Upcalls}. So it can be tested with a fake context over an
 * in-memory link, and driven by any thread that owns the link (the single-writer rule, see
 * {@code QpEngine.doWork()}). Depends on {@code mem}, {@code wq} and {@code link}.
 */
package io.jrnic.core.engine;
