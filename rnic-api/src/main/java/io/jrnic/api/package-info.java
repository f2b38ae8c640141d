/**
 * The Verbs facade of jrnic (RDMA Verbs specification 1.0).
 */
package io.jrnic.api;
