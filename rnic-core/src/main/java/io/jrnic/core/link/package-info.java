/**
 * The FPDU link seam (RFC 5044 §4): what the QP engine needs of an MPA stream in Full Operation,
 * and nothing else. {@link io.jrnic.core.link.FpduLink} takes whole ULPDUs out (one FPDU each, the
 * payload a slice of registered memory that is never copied) and delivers verified ULPDUs in, to an
 * {@link io.jrnic.mpa.FpduHandler} or, for direct placement, an {@link io.jrnic.mpa.PlacementHandler}.
 * Its {@link io.jrnic.core.link.FpduLink.Listener} carries the notifications upward (writability,
 * send completions for RFC 5040 §5, the one {@link io.jrnic.core.link.FpduLink.Closure}).
 *
 * <p>The package is the lowest layer of the connection path: it depends on nothing else in
 * {@code io.jrnic.core} (only on {@code io.jrnic.mpa}). The netty transport
 * ({@code io.jrnic.core.transport.FpduChannel}) implements the seam directly; the engine
 * ({@code io.jrnic.core.engine.QpEngine}) drives it; tests put in-memory links in its place.
 *
 * <p>Threading: a link belongs to one executor ({@link io.jrnic.core.link.FpduLink#executor()});
 * everything but {@code close()} and {@code abort()} runs there, and so do all callbacks.
 */
package io.jrnic.core.link;
