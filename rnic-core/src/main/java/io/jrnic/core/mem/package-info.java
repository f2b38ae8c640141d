/**
 * Memory: the STag table, memory regions and windows, protection domains, and the access checks
 * (RFC 5040 §8.1.1, RFC 5041 §7.1, RFC 5042 §5, Verbs ch. 7). The lowest layer of rnic-core: it
 * knows a QP only through {@link io.jrnic.core.mem.QpMemoryView} (its PD, number, privilege and
 * bound windows), and the checks return their error as a value, like Linux siw's
 * {@code siw_check_mem()}. Calls upward (allocation, the open check, QP creation through a PD) go
 * through {@link io.jrnic.core.mem.MemoryOwner} and {@link io.jrnic.core.mem.ProtectionDomainOwner}.
 *
 * <p>Threading: STag state changes under {@code MemoryManager.lock}; lookups on the data path read
 * volatile bindings without it.
 */
package io.jrnic.core.mem;
