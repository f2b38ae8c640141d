/**
 * The implementation of the Verbs facade.
 */
package io.jrnic.core;
