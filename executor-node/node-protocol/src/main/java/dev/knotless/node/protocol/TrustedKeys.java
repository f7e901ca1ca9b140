package dev.knotless.node.protocol;

import java.security.PublicKey;
import java.util.Collection;
import java.util.Optional;

/** The public keys whose signatures the receiver believes, by key id. */
public interface TrustedKeys {

    Optional<PublicKey> find(String keyId);

    /** Every key trusted now (a node pins the runner's TLS certificate to one of them). */
    Collection<PublicKey> all();
}
