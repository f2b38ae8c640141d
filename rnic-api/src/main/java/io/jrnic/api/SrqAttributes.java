package io.jrnic.api;

/**
 * Output of Query S-RQ (Verbs 1.0 §9.2.4.2).
 *
 * @param maxWrs       allocated maximum outstanding WRs
 * @param maxSge       allocated SGEs per WR
 * @param pdId         the PD ID
 * @param limit        the S-RQ Limit
 * @param limitArmed   whether the limit event is armed
 * @param outstanding  WRs posted whose completion has not been polled yet
 * @param available    WRs posted and not yet used by any QP
 */
public record SrqAttributes(int maxWrs, int maxSge, int pdId, int limit, boolean limitArmed, int outstanding,
                            int available) {
}
