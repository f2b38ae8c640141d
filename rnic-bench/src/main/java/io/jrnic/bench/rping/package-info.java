/**
 * {@code rping}: rdma-core's librdmacm example ping-pong, byte for byte on the wire, over the jrnic
 * soft RNIC. {@link io.jrnic.bench.rping.Rping} is the command ({@code java -jar rnic-bench.jar rping});
 * {@link io.jrnic.bench.rping.RpingClient} and {@link io.jrnic.bench.rping.RpingServer} are the two
 * roles, {@link io.jrnic.bench.rping.RdmaInfoFlyweight} the 16-byte advertisement they exchange.
 * See docs/interop.md for the interoperability runs against Linux siw.
 */
package io.jrnic.bench.rping;
