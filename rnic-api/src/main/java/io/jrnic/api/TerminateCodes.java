package io.jrnic.api;

/**
 * The names of the Terminate Control Field's values (Layer, Error Type, Error Code), as RFC 5040
 * §4.8 Figure 9 (RDMAP), RFC 5041 §7.2 (DDP), RFC 5044 §8 and RFC 6581 §8 (MPA) name them and
 * RFC 6580 §3 registers them. The protocol modules hold the same errors as values
 * ({@code RdmapError}, {@code DdpError}, {@code MpaError}); the API depends on none of them, so the
 * names are repeated here and a test in rnic-core checks that both list the same registrations.
 *
 * <p>Stateless; thread-safe.
 */
final class TerminateCodes {
    /** RFC 6580 §3: the word for a combination the registries do not list. */
    static final String UNASSIGNED = "Unassigned";

    private TerminateCodes() {
    }

    /** RFC 5040 Figure 9 Layer Name; the LLP is MPA (RFC 5044). */
    static String layerName(int layer) {
        return switch (layer) {
            case 0x0 -> "RDMAP";
            case 0x1 -> "DDP";
            case 0x2 -> "LLP";
            default -> UNASSIGNED;
        };
    }

    /** The Error Type Name of the layer's registry. */
    static String typeName(int layer, int type) {
        return switch (layer << 4 | type) {
            case 0x00 -> "Local Catastrophic Error";
            case 0x01 -> "Remote Protection Error";
            case 0x02 -> "Remote Operation Error";
            case 0x10 -> "Local Catastrophic";
            case 0x11 -> "Tagged Buffer Error";
            case 0x12 -> "Untagged Buffer Error";
            case 0x13 -> "Reserved for use by the LLP";
            case 0x20 -> "MPA Error";
            default -> UNASSIGNED;
        };
    }

    /**
     * The Error Code Name, or the empty string for an error registered by its Error Type Name alone
     * (RDMAP Local Catastrophic Error, any code; DDP Local Catastrophic, code 0x00; DDP type 3,
     * reserved for the LLP, any code).
     */
    static String codeName(int layer, int type, int code) {
        if (layer == 0x0 && type == 0x0 || layer == 0x1 && type == 0x3) {
            return "";
        }
        return switch (layer << 12 | type << 8 | code) {
            case 0x0100 -> "Invalid STag";
            case 0x0101 -> "Base or bounds violation";
            case 0x0102 -> "Access rights violation";
            case 0x0103 -> "STag not associated with RDMAP Stream";
            case 0x0104 -> "TO wrap";
            case 0x0109, 0x0209 -> "STag cannot be Invalidated";
            case 0x01FF, 0x02FF -> "Unspecified Error";
            case 0x0205 -> "Invalid RDMAP version";
            case 0x0206 -> "Unexpected OpCode";
            case 0x0207 -> "Catastrophic error, localized to RDMAP Stream";
            case 0x0208 -> "Catastrophic error, global";
            case 0x1000 -> ""; // registered with its Error Type Name only (RFC 6580 §3.2)
            case 0x1100 -> "Invalid STag";
            case 0x1101 -> "Base or bounds violation";
            case 0x1102 -> "STag not associated with DDP Stream";
            case 0x1103 -> "TO wrap";
            case 0x1104, 0x1206 -> "Invalid DDP version";
            case 0x1201 -> "Invalid QN";
            case 0x1202 -> "Invalid MSN - no buffer available";
            case 0x1203 -> "Invalid MSN - MSN range is not valid";
            case 0x1204 -> "Invalid MO";
            case 0x1205 -> "DDP Message too long for available buffer";
            case 0x2001 -> "TCP connection closed, terminated, or lost";
            case 0x2002 -> "MPA CRC Error";
            case 0x2003 -> "MPA Marker and ULPDU Length field mismatch";
            case 0x2004 -> "Invalid MPA Request Frame or MPA Response Frame";
            case 0x2005 -> "Local catastrophic";
            case 0x2006 -> "Insufficient IRD resources";
            case 0x2007 -> "No matching RTR option";
            default -> UNASSIGNED;
        };
    }
}
