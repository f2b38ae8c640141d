/**
 * Connection management (Verbs §6.6): listen, connect, accept and reject over the netty transport,
 * and the join of an MPA stream in Full Operation to a queue pair (an engine on the channel, the QP
 * to RTS). The highest layer below {@code io.jrnic.core.SoftRnic}.
 */
package io.jrnic.core.cm;
