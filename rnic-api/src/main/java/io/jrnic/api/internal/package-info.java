/**
 * Hooks of the API for its implementation only (exported to {@code io.jrnic.core} alone); not
 * part of the public API.
 */
package io.jrnic.api.internal;
