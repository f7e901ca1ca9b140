package dev.knotless.spindle;

import org.jspecify.annotations.Nullable;

/** Who is calling an XRPC: the service-auth token's issuer, checked for this spindle and this method. */
@FunctionalInterface
public interface Callers {

    /** The outcome of a check. */
    sealed interface Caller {
        record Known(String did) implements Caller {}

        record Refused(String reason) implements Caller {}
    }

    /**
     * @param authorization the request's {@code Authorization} header, or null
     * @param method the XRPC method called, which the token's {@code lxm} must name
     */
    Caller verify(@Nullable String authorization, String method);
}
