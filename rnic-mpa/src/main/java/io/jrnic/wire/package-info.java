/**
 * Vocabulary shared by all iWARP layers: the classification of errors as an RDMAP Terminate
 * message carries them (RFC 5040 §4.8, RFC 6580 §3).
 */
package io.jrnic.wire;
