/**
 * The netty transport of jrnic: MPA connection setup (RFC 5044 §7.1, RFC 6581) over TCP and the
 * established FPDU channel that the QP engine drives.
 *
 * <p>Netty is confined to this package. {@link io.jrnic.core.transport.IwarpTransport} owns the
 * event loops; {@link io.jrnic.core.transport.IwarpTransport#listen listen} and
 * {@link io.jrnic.core.transport.IwarpTransport#connect connect} run the MPA exchange (revision 1
 * and 2, CRC and marker negotiation, IRD/ORD, peer-to-peer RTR) and hand over an
 * {@link io.jrnic.core.transport.FpduChannel} with its {@link io.jrnic.core.transport.ConnectionInfo}.
 * The channel sends FPDUs without copying payload, and on receive can read payload straight into the
 * placement target (docs/transport.md).
 *
 * <p>Threading: every connection is owned by one event loop; all callbacks run on it and must not
 * block it.
 */
package io.jrnic.core.transport;
