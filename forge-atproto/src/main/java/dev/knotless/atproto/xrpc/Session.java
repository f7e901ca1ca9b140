package dev.knotless.atproto.xrpc;

import java.util.Objects;

/**
 * A logged-in session: the account and its two tokens. The tokens are bearer credentials, so
 * {@link #toString()} leaves them out.
 *
 * @param did the account's DID, the repository records are written to
 * @param handle its handle when it logged in
 */
public record Session(String did, String handle, String accessJwt, String refreshJwt) {

    public Session {
        Objects.requireNonNull(did, "did");
        Objects.requireNonNull(handle, "handle");
        Objects.requireNonNull(accessJwt, "accessJwt");
        Objects.requireNonNull(refreshJwt, "refreshJwt");
    }

    @Override
    public String toString() {
        return "Session[" + did + " (" + handle + "), tokens hidden]";
    }
}
