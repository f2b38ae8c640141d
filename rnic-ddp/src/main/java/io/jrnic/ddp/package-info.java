/**
 * DDP (RFC 5041): header flyweights, segmentation of messages into MULPDU-sized segments, and the
 * receive-side validation and reassembly state per untagged queue. Pure codecs; no I/O.
 */
package io.jrnic.ddp;
