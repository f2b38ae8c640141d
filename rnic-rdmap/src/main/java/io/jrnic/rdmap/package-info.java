/**
 * RDMAP (RFC 5040, RFC 7306, draft-talpey-rdma-commit-01): opcode table, header flyweights,
 * Terminate messages and the error tables. Pure codecs; no I/O.
 */
package io.jrnic.rdmap;
