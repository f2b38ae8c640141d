/**
 * The service provider interface between the Verbs facade and an RNIC implementation
 * ({@link io.jrnic.api.Rnic#open(io.jrnic.api.RnicConfig)}).
 */
package io.jrnic.api.spi;
