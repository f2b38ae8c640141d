/**
 * The Verbs objects of the data path (Verbs §6, §8): queue pairs with their state machine
 * ({@link io.jrnic.core.qp.QpStateMachine}, the only place that assigns a QP's state), completion
 * queues, shared receive queues and the event dispatcher. They get their collaborators at creation
 * ({@link io.jrnic.core.qp.RnicResources}) and tell the RNIC about their end through
 * {@link io.jrnic.core.qp.RnicResources.Owner}. Depends on {@code mem}, {@code wq}, {@code link} and
 * {@code engine}.
 */
package io.jrnic.core.qp;
