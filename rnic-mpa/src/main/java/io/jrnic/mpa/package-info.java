/**
 * MPA (Marker PDU Aligned framing, RFC 5044 as updated by RFC 6581): startup frames, FPDUs,
 * CRC32c, markers and the receive-side deframer. Pure codecs over memory segments; no I/O.
 */
package io.jrnic.mpa;
