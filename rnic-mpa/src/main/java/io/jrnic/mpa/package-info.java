/**
 * MPA (Marker PDU Aligned framing, RFC 5044 as updated by RFC 6581): startup frames, FPDUs,
 * CRC32c, markers and the receive-side deframer. Pure codecs over memory segments; no I/O.
 *
 * <ul>
 *   <li>Startup: {@link io.jrnic.mpa.StartupFrame}, {@link io.jrnic.mpa.StartupFrameParser},
 *       {@link io.jrnic.mpa.MpaNegotiator} with {@link io.jrnic.mpa.MpaSettings}.</li>
 *   <li>Sending: {@link io.jrnic.mpa.FpduWriter} (copying or gathering).</li>
 *   <li>Receiving: {@link io.jrnic.mpa.FpduDeframer} with an {@link io.jrnic.mpa.FpduHandler} or,
 *       for direct placement, a {@link io.jrnic.mpa.PlacementHandler}.</li>
 *   <li>Errors are values: {@link io.jrnic.mpa.MpaError}, {@link io.jrnic.mpa.DeframeFault},
 *       {@link io.jrnic.mpa.StartupFrameReason}.</li>
 * </ul>
 *
 * See docs/mpa.md for the decisions behind each class.
 */
package io.jrnic.mpa;
