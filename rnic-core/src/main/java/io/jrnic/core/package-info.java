/**
 * The software RNIC behind the Verbs facade: entry point {@link io.jrnic.core.SoftRnic}, STag
 * table and memory management, completion queues, shared receive queues, the queue pair state
 * machine and the transport SPI {@link io.jrnic.core.engine.QpTransport}.
 */
package io.jrnic.core;

import io.jrnic.core.engine.QpTransport;
